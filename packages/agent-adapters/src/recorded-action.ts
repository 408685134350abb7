/**
 * The actions the adapters record, in one shape for every framework. A tool call is the SDK's
 * `RecordedToolCall`, as the MCP proxy records it: the tool, its arguments, its result or error,
 * the framework's id of the call, and when it started and ended (ISO 8601); `kind` names the
 * framework. Arguments and results are kept in the JSON form the frameworks send to the model
 * (`jsonForm`). The action hashed is the canonical JSON of the payload (after `redact`, when given).
 */
import {
  ABAS_SDK__ACTION_NOT_RECORDED,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__TOOL_CALL_NOT_RECORDED,
  ABAS_SDK__TOOL_RESULT_NOT_JSON,
  AbasError,
  getAbasErrorCodeName,
} from "@abas/errors";
import { canonicalize, type BatchItemReceipt, type RecordedToolCall } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";

/**
 * A tool call the adapters record: `kind` names the framework; `error` is `{ name, message }` of a
 * thrown Error, else the JSON form of what was thrown (its text when it has none).
 */
export type ToolCallPayload = RecordedToolCall;

export type RecordedActionType = "ToolCall" | "ModelInvocation" | "Decision";

/** What `onRecord` is called with, once the action is on disk in the attestor's queue. */
export type RecordedEntry = Readonly<{
  actionType: RecordedActionType;
  /** The payload hashed (after `redact`). */
  payload: unknown;
  actionHash: string;
  /** The action's receipt once its batch is confirmed (see `Attestor.record`). */
  receipt: Promise<BatchItemReceipt>;
}>;

export type AdapterOptions = Readonly<{
  /** Record salted commitments instead of hashes; default false. */
  privacyMode?: boolean;
  /** Returns what to hash instead of the payload (e.g. without a secret argument). */
  redact?: (payload: unknown, actionType: RecordedActionType) => unknown;
  /** Called for every recorded action, with its receipt to come. */
  onRecord?: (entry: RecordedEntry) => void;
}>;

function invalidArgument(argument: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument, reason });
}

export function optionalFunction<T>(value: unknown, name: string): T | undefined {
  if (value !== undefined && typeof value !== "function") throw invalidArgument(name, "expected a function");
  return value as T | undefined;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** A failure to record that the framework would ignore, as a process warning under its code's name. */
export function warnNotRecorded(error: AbasError): void {
  process.emitWarning(error.message, { code: getAbasErrorCodeName(error.context.__code) });
}

/**
 * `value` as JSON carries it to the model: what `JSON.stringify` writes, read back (`toJSON`
 * followed, `undefined` members and functions left out, non-finite numbers as null), and checked to
 * be I-JSON as the SDK hashes it. Undefined when `value` has no JSON text at all (undefined, a
 * function). Throws for a bigint, a cycle or a lone UTF-16 surrogate.
 */
export function jsonForm(value: unknown): unknown {
  const text = JSON.stringify(value);
  if (text === undefined) return undefined;
  const form: unknown = JSON.parse(text);
  canonicalize(form);
  return form;
}

/** `error` as it is recorded: an Error by its name and message, anything else in its JSON form (or as text). */
export function describeThrown(error: unknown): unknown {
  if (error instanceof Error) return { name: error.name, message: error.message };
  try {
    return jsonForm(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** The optional types a model wrapper records: each a boolean when given, and at least one enabled. */
export function checkModelRecording(options: Readonly<{ modelInvocations?: boolean; decisions?: boolean }>): {
  modelInvocations: boolean;
  decisions: boolean;
} {
  const { modelInvocations, decisions } = options;
  for (const [name, value] of Object.entries({ modelInvocations, decisions })) {
    if (value !== undefined && typeof value !== "boolean") {
      throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument: name, reason: "expected a boolean" });
    }
  }
  if (modelInvocations !== true && decisions !== true) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "modelInvocations | decisions",
      reason: "enable at least one of them",
    });
  }
  return { modelInvocations: modelInvocations === true, decisions: decisions === true };
}

/** A tool call as the framework hands it over, before the tool runs. */
export type ToolCallStart = Readonly<{
  kind: string;
  tool: string;
  input: unknown;
  /** The framework's id of the call (AI SDK `toolCallId`, OpenAI Agents `callId`). */
  callId: string | undefined;
}>;

/** A started tool call: recorded once, with the tool's result or with its error. */
export type ToolCallRecording = Readonly<{
  /**
   * Records the result (in its JSON form) and returns it as it came. A result with no JSON form is
   * recorded as the error `ABAS_SDK__TOOL_RESULT_NOT_JSON`, which is thrown.
   */
  finished: <T>(result: T) => T;
  /** Records what the tool threw. */
  failed: (error: unknown) => void;
  /** Records what `execute` returned once it settles: its value (`finished`) or what it rejects with (`failed`). */
  settled: <T>(outcome: PromiseLike<T> | T) => Promise<T>;
}>;

/** Records actions of one framework with an attestor, checked once. */
export class ActionRecorder {
  readonly #attestor: Attestor;
  readonly #privacyMode: boolean;
  readonly #redact: AdapterOptions["redact"];
  readonly #onRecord: AdapterOptions["onRecord"];

  constructor(attestor: unknown, options: unknown) {
    if (!(attestor instanceof Attestor)) throw invalidArgument("attestor", "expected an open Attestor");
    if (options === null || typeof options !== "object")
      throw invalidArgument("options", "expected an object");
    const { privacyMode, redact, onRecord } = options as Record<string, unknown>;
    if (privacyMode !== undefined && typeof privacyMode !== "boolean") {
      throw invalidArgument("privacyMode", "expected a boolean");
    }
    this.#attestor = attestor;
    this.#privacyMode = privacyMode ?? false;
    this.#redact = optionalFunction(redact, "redact");
    this.#onRecord = optionalFunction(onRecord, "onRecord");
  }

  /**
   * Writes a model invocation or a decision to the attestor's queue before returning; throws
   * `ABAS_SDK__ACTION_NOT_RECORDED` when it cannot be.
   */
  record(actionType: "ModelInvocation" | "Decision", payload: unknown): void {
    try {
      this.#write(actionType, payload);
    } catch (error) {
      throw new AbasError(ABAS_SDK__ACTION_NOT_RECORDED, { actionType, reason: messageOf(error) });
    }
  }

  /**
   * Starts a tool call, before the tool runs: a call whose arguments have no JSON form, or made
   * while the attestor takes no actions (closed, its queue full, its sender stopped), throws
   * `ABAS_SDK__TOOL_CALL_NOT_RECORDED` and must not run. The recording's `finished` and `failed`
   * write the call to the attestor's queue before they return, and throw
   * `ABAS_SDK__TOOL_CALL_NOT_RECORDED` when it cannot be written (a full disk), so the agent never
   * goes on with an unrecorded result.
   */
  startToolCall({ kind, tool, input, callId }: ToolCallStart): ToolCallRecording {
    let args: unknown;
    try {
      args = jsonForm(input) ?? null;
      this.#attestor.assertAccepting();
    } catch (error) {
      throw new AbasError(ABAS_SDK__TOOL_CALL_NOT_RECORDED, {
        tool,
        reason: `the tool was not run: ${messageOf(error)}`,
      });
    }
    const startedAt = new Date().toISOString();
    const write = (outcome: { result?: unknown } | { error: unknown }): void => {
      const payload: ToolCallPayload = {
        kind,
        tool,
        arguments: args,
        ...outcome,
        ...(callId === undefined ? {} : { callId }),
        startedAt,
        endedAt: new Date().toISOString(),
      };
      try {
        this.#write("ToolCall", payload);
      } catch (error) {
        throw new AbasError(ABAS_SDK__TOOL_CALL_NOT_RECORDED, { tool, reason: messageOf(error) });
      }
    };
    const finished = <T>(result: T): T => {
      let form: unknown;
      try {
        form = jsonForm(result);
      } catch (error) {
        const refused = new AbasError(ABAS_SDK__TOOL_RESULT_NOT_JSON, { tool, reason: messageOf(error) });
        write({ error: describeThrown(refused) });
        throw refused;
      }
      write(form === undefined ? {} : { result: form });
      return result;
    };
    const failed = (error: unknown): void => write({ error: describeThrown(error) });
    return {
      finished,
      failed,
      settled: <T>(outcome: PromiseLike<T> | T): Promise<T> =>
        Promise.resolve(outcome).then(finished, (error: unknown) => {
          failed(error);
          throw error;
        }),
    };
  }

  /** Runs a tool call started with `startToolCall`'s checks, recording it finished or failed. */
  async runTool<T>(start: ToolCallStart, run: () => PromiseLike<T> | T): Promise<T> {
    const call = this.startToolCall(start);
    let outcome: PromiseLike<T> | T;
    try {
      outcome = run();
    } catch (error) {
      call.failed(error);
      throw error;
    }
    return await call.settled(outcome);
  }

  /** Writes the action to the queue, then tells `onRecord`, whose own failure is a process warning only. */
  #write(actionType: RecordedActionType, payload: unknown): void {
    const hashed = this.#redact === undefined ? payload : this.#redact(payload, actionType);
    const { actionHash, receipt } = this.#attestor.record({
      actionType,
      payload: hashed,
      privacyMode: this.#privacyMode,
    });
    // A batch that fails stays in the queue for the next start; `onRecord` hands the promise on.
    receipt.catch(() => {});
    const warn = (error: unknown): void =>
      process.emitWarning(
        `onRecord failed for the ${actionType} action ${actionHash}, which is recorded: ${messageOf(error)}`,
        { code: "ABAS_ON_RECORD_FAILED" },
      );
    try {
      const returned: unknown = this.#onRecord?.({ actionType, payload: hashed, actionHash, receipt });
      // Any thenable, a promise of another realm too.
      if (typeof (returned as PromiseLike<unknown> | undefined)?.then === "function")
        Promise.resolve(returned).catch(warn);
    } catch (error) {
      warn(error);
    }
  }
}
