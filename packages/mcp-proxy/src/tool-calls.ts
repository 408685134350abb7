/**
 * Pairs each `tools/call` request of the host with the server's response to it, into the
 * action that is recorded: the tool, its arguments, its result or error, when it started and
 * ended (ISO 8601, the proxy's clock), and the request's id.
 */
import { jsonAmbiguity, type RecordedToolCall } from "@abas/sdk";

import { MAX_READ_LINE_BYTES, whyHostDropsResponse } from "./host-reading.js";
import { elementText, parseElements } from "./message-lines.js";

export type { RecordedToolCall };

/** A tool call as the proxy records it: `result` is the JSON-RPC result (which may say `isError: true`), `error` the JSON-RPC error, `callId` the request's id. */
export type ToolCallAction = RecordedToolCall & Readonly<{ kind: "mcp/tools/call"; callId: string | number }>;

/**
 * A completed call and the index of its response in the server's line; `unrecordable` says why a
 * response is not recorded: one the host would not take as its answer (so that the next answer
 * would be the one it acts on), or a later answer to a call whose answer was not recorded. Such a
 * response must reach the host as an error instead.
 */
export type CompletedCall = Readonly<{ action: ToolCallAction; index: number; unrecordable?: string }>;

type PendingCall = {
  id: string | number;
  tool: string;
  arguments: unknown;
  startedAt: string;
  requestText?: string;
  /** Sent in a batch: only a batch answers it (the official client reads no batch at all). */
  inBatch: boolean;
};

/**
 * The exact text of a message when it says more than the value JSON.parse reads (a repeated key, a
 * number with more digits than a double keeps), with the reason; undefined when it says no more.
 * Only the element's own text is scanned, and only when the line as a whole says more.
 */
function textSayingMore(
  line: Buffer,
  index: number,
  lineSaysMore: () => boolean,
): { text: string; ambiguity: string } | undefined {
  if (!lineSaysMore()) return undefined;
  const text = elementText(line, index);
  const ambiguity = jsonAmbiguity(text);
  return ambiguity === undefined ? undefined : { text, ambiguity };
}

/** Whether a line says more than JSON.parse reads, asked at most once per line. */
function lineAmbiguity(line: Buffer): () => boolean {
  let answer: boolean | undefined;
  return () => (answer ??= jsonAmbiguity(line.toString("utf8")) !== undefined);
}

/** Calls awaiting their responses at most; past it the oldest is given up (and logged). */
export const MAX_PENDING_CALLS = 10_000;
/** Cancelled calls kept at most, so that a response the server sends anyway is still recorded. */
export const MAX_CANCELLED_CALLS = 1_000;
/** Answered calls remembered at most, so that a second answer to one is told apart and refused if need be. */
export const MAX_ANSWERED_CALLS = 1_000;

const idKey = (id: unknown): string | undefined =>
  typeof id === "string" || typeof id === "number" ? JSON.stringify(id) : undefined;

/**
 * The other spelling of an id as hosts read it: the official client matches a response to its
 * request by `Number(id)`, so it takes `"1"` as the answer to its call 1. A response whose id
 * matches no request of the host is paired through it (a server that answers `1` with `"1"` is
 * recorded); one whose id is that of another request in flight (a ping `"1"` beside the call `1`)
 * is that request's.
 */
function otherSpelling(id: unknown): string | undefined {
  if (typeof id === "number") return JSON.stringify(String(id));
  if (typeof id !== "string") return undefined;
  const spelled = Number(id);
  return Number.isFinite(spelled) ? JSON.stringify(spelled) : undefined;
}

/** Calls by id, oldest first; an id the host reused while its first call was open holds both, in order. */
class CallsById {
  readonly #calls = new Map<string, PendingCall[]>();
  #size = 0;

  constructor(
    readonly maxSize: number,
    readonly onDropped: (call: PendingCall) => void,
  ) {}

  add(key: string, call: PendingCall): void {
    const same = this.#calls.get(key);
    if (same === undefined) this.#calls.set(key, [call]);
    else same.push(call);
    this.#size += 1;
    if (this.#size > this.maxSize) {
      const [oldestKey] = this.#calls.keys();
      this.onDropped(this.take(oldestKey!)!);
    }
  }

  take(key: string): PendingCall | undefined {
    const same = this.#calls.get(key);
    const call = same?.shift();
    if (call === undefined) return undefined;
    if (same!.length === 0) this.#calls.delete(key);
    this.#size -= 1;
    return call;
  }

  has(key: string): boolean {
    return this.#calls.has(key);
  }

  get size(): number {
    return this.#size;
  }
}

export type ToolCallTrackerOptions = Readonly<{
  /** Told of what the host did that the tracker can only handle by guessing, or gave up on. */
  warn?: (message: string) => void;
}>;

/**
 * The name a call is recorded under: a name that is not text (which the server refuses) as its
 * JSON text, whatever the host sent in its place.
 */
function toolName(name: unknown): string {
  if (typeof name === "string") return name;
  try {
    return JSON.stringify(name) ?? "undefined";
  } catch {
    return "(not JSON)";
  }
}

/** A tools/call the host sent that the proxy does not take (it could not be recorded), by its place in the line. */
export type RefusedCall = Readonly<{ index: number; id: string | number; tool: string; reason: string }>;

/**
 * An answered call, remembered by what names it (not its arguments, which may be large), and
 * whether its answer was refused (not recorded).
 */
type AnsweredCall = Readonly<{ tool: string; id: string | number; startedAt: string; refused: boolean }>;

export class ToolCallTracker {
  readonly #warn: (message: string) => void;
  readonly #pending: CallsById;
  readonly #cancelled: CallsById;
  /** The host's other requests awaiting responses, by id key (how many), oldest first. */
  readonly #otherRequests = new Map<string, number>();
  /** The last calls answered, by id key, oldest first. */
  readonly #answered = new Map<string, AnsweredCall>();

  constructor(options: ToolCallTrackerOptions = {}) {
    this.#warn = options.warn ?? (() => {});
    this.#pending = new CallsById(MAX_PENDING_CALLS, (call) =>
      this.#warn(
        `tool ${call.tool} (id ${JSON.stringify(call.id)}): ${MAX_PENDING_CALLS} calls are waiting for responses; the oldest is not recorded`,
      ),
    );
    this.#cancelled = new CallsById(MAX_CANCELLED_CALLS, () => {});
  }

  /**
   * Notes the `tools/call` requests in a line the host sent; undefined when the line is not JSON.
   * `refusal` is asked before each call is taken: a reason means the call could not be recorded, so
   * it is not noted but returned, for the proxy to answer instead of forwarding it.
   */
  fromHost(
    line: Buffer,
    now = new Date(),
    refusal: () => string | undefined = () => undefined,
  ): { refused: RefusedCall[]; batch: boolean } | undefined {
    const parsed = parseElements(line);
    if (parsed === undefined) return undefined;
    const refused: RefusedCall[] = [];
    const lineSaysMore = lineAmbiguity(line);
    for (const [index, element] of parsed.elements.entries()) {
      if (typeof element !== "object" || element === null) continue;
      const message = element as Record<string, unknown>;
      if (message.method === "notifications/cancelled") {
        // The server need not answer a cancelled request; one that answers anyway is recorded.
        const cancelled = idKey((message.params as { requestId?: unknown } | undefined)?.requestId);
        const call = cancelled === undefined ? undefined : this.#pending.take(cancelled);
        if (call !== undefined) this.#cancelled.add(cancelled!, call);
        continue;
      }
      const key = idKey(message.id);
      if (key === undefined || typeof message.method !== "string") continue;
      if (message.method !== "tools/call") {
        this.#otherRequests.set(key, (this.#otherRequests.get(key) ?? 0) + 1);
        if (this.#otherRequests.size > MAX_PENDING_CALLS)
          this.#otherRequests.delete(this.#otherRequests.keys().next().value!);
        continue;
      }
      const params = (message.params ?? {}) as Record<string, unknown>;
      const tool = toolName(params.name);
      const reason = refusal();
      if (reason !== undefined) {
        refused.push({ index, id: message.id as string | number, tool, reason });
        continue;
      }
      if (this.#pending.has(key))
        this.#warn(
          `the host reused the id ${key} of a tools/call still waiting for its response: responses to that id are paired with its calls in order`,
        );
      const exact = textSayingMore(line, index, lineSaysMore);
      if (exact !== undefined)
        this.#warn(
          `tool ${tool} (id ${key}): the request says more than JSON.parse reads of it (${exact.ambiguity}); its exact text is recorded too (requestText)`,
        );
      this.#pending.add(key, {
        id: message.id as string | number,
        tool,
        arguments: params.arguments ?? {},
        startedAt: now.toISOString(),
        ...(exact === undefined ? {} : { requestText: exact.text }),
        inBatch: parsed.batch,
      });
    }
    return { refused, batch: parsed.batch };
  }

  /**
   * The tool calls that a line the server sent completes, each with the place of its response in
   * the line (its index in a batch, 0 otherwise).
   */
  fromServer(line: Buffer, now = new Date()): CompletedCall[] {
    const parsed = parseElements(line);
    if (parsed === undefined) {
      if (this.#pending.size > 0 || this.#cancelled.size > 0)
        this.#warn(
          `the server sent a line that is not JSON (${line.length} bytes), forwarded as it is; a tools/call it answers is not recorded`,
        );
      return [];
    }
    const completed: CompletedCall[] = [];
    const lineSaysMore = lineAmbiguity(line);
    parsed.elements.forEach((element, index) => {
      if (typeof element !== "object" || element === null) return;
      const message = element as Record<string, unknown>;
      const key = idKey(message.id);
      if (key === undefined || "method" in message) return; // a request of the server's own
      const call =
        this.#take(key) ?? (this.#answersOtherRequest(key) ? null : this.#takeOtherSpelling(message.id));
      if (call === null) return; // the answer to another request of the host
      if (call === undefined) {
        const again = this.#answeredAgain(key, message.id, index, now);
        if (again !== undefined) completed.push(again);
        return;
      }
      const exact = textSayingMore(line, index, lineSaysMore);
      if (exact !== undefined)
        this.#warn(
          `tool ${call.tool} (id ${key}): the response says more than JSON.parse reads of it (${exact.ambiguity}); its exact text is recorded too (responseText)`,
        );
      const action: ToolCallAction = {
        kind: "mcp/tools/call",
        tool: call.tool,
        arguments: call.arguments,
        ...("error" in message ? { error: message.error } : { result: message.result }),
        startedAt: call.startedAt,
        endedAt: now.toISOString(),
        callId: call.id,
        ...(call.requestText === undefined ? {} : { requestText: call.requestText }),
        ...(exact === undefined ? {} : { responseText: exact.text }),
      };
      const unrecordable = this.#whyNotRecordable(message, line, parsed.batch, call);
      this.#remember(idKey(call.id)!, {
        tool: call.tool,
        id: call.id,
        startedAt: call.startedAt,
        refused: unrecordable !== undefined,
      });
      completed.push(unrecordable === undefined ? { action, index } : { action, index, unrecordable });
    });
    return completed;
  }

  /** Why the host would not take this response as the call's answer, if it would not. */
  #whyNotRecordable(
    message: Record<string, unknown>,
    line: Buffer,
    batch: boolean,
    call: PendingCall,
  ): string | undefined {
    if (batch && !call.inBatch)
      return "a batch answers a call the host sent alone (the official MCP client reads no batch)";
    if (line.length > MAX_READ_LINE_BYTES)
      return `the line is ${line.length} bytes, more than the official MCP client is sure to read (${MAX_READ_LINE_BYTES})`;
    const dropped = whyHostDropsResponse(message);
    return dropped === undefined ? undefined : `the official MCP client drops it: ${dropped}`;
  }

  #remember(key: string, answered: AnsweredCall): void {
    this.#answered.delete(key);
    this.#answered.set(key, answered);
    if (this.#answered.size > MAX_ANSWERED_CALLS) this.#answered.delete(this.#answered.keys().next().value!);
  }

  /**
   * A response to a call answered before, which the host does not await: after a recorded answer it
   * is forwarded as it is (the host took the first); after a refused one it is refused too, since a
   * host that dropped the first answer would act on this one.
   */
  #answeredAgain(key: string, id: unknown, index: number, now: Date): CompletedCall | undefined {
    const answered = this.#answered.get(key) ?? this.#answered.get(otherSpelling(id) ?? "");
    if (answered === undefined) {
      this.#warn(
        `the server sent a response to the id ${key}, which no request of the host awaits: forwarded as it is`,
      );
      return undefined;
    }
    if (!answered.refused) {
      this.#warn(
        `tool ${answered.tool} (id ${key}): the server answered the call again; forwarded as it is, not recorded (the host took the first answer)`,
      );
      return undefined;
    }
    return {
      action: {
        kind: "mcp/tools/call",
        tool: answered.tool,
        // (never recorded: only the error that replaces the response names the call)
        arguments: null,
        startedAt: answered.startedAt,
        endedAt: now.toISOString(),
        callId: answered.id,
      },
      index,
      unrecordable: "the server answered the call again after an answer that was not recorded",
    };
  }

  #take(key: string | undefined): PendingCall | undefined {
    return key === undefined ? undefined : (this.#pending.take(key) ?? this.#cancelled.take(key));
  }

  /** Whether a response with this id key answers another request of the host (then no longer awaited). */
  #answersOtherRequest(key: string): boolean {
    const count = this.#otherRequests.get(key);
    if (count === undefined) return false;
    if (count === 1) this.#otherRequests.delete(key);
    else this.#otherRequests.set(key, count - 1);
    return true;
  }

  #takeOtherSpelling(id: unknown): PendingCall | undefined {
    const call = this.#take(otherSpelling(id));
    if (call !== undefined)
      this.#warn(
        `the server answered the tools/call with id ${JSON.stringify(call.id)} under the id ${JSON.stringify(id)}: recorded as its answer, as hosts read it`,
      );
    return call;
  }

  /** Calls waiting for their responses (cancelled ones not counted). */
  get pendingCount(): number {
    return this.#pending.size;
  }
}
