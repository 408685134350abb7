/**
 * The actions the adapters record, in one shape for every framework. A tool call is the SDK's
 * `RecordedToolCall`, as the MCP proxy records it: the tool, its arguments, its result or error, and
 * when it started and ended (ISO 8601); `kind` names the framework. The action hashed is the canonical JSON
 * of the payload (after `redact`, when given).
 */
import { ABAS_SDK__INVALID_ARGUMENT, ABAS_SDK__TOOL_CALL_NOT_RECORDED, AbasError } from "@abas/errors";
import type { BatchItemReceipt, RecordedToolCall } from "@abas/sdk";
import { Attestor } from "@abas/sdk/attestor";

/** A tool call the adapters record: `kind` names the framework; `error` is `{ name, message }` of a thrown Error, else its text. */
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

function optionalFunction<T>(value: unknown, name: string): T | undefined {
  if (value !== undefined && typeof value !== "function") throw invalidArgument(name, "expected a function");
  return value as T | undefined;
}

/** `error` as it is recorded: an Error by its name and message, anything else as text. */
export function describeThrown(error: unknown): unknown {
  return error instanceof Error ? { name: error.name, message: error.message } : String(error);
}

/** Records actions of one framework with an attestor, checked once. */
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
   * Writes the action to the attestor's queue before returning; a tool call that cannot be
   * recorded throws `ABAS_SDK__TOOL_CALL_NOT_RECORDED` (the queue is full or closed, or the
   * payload has no JSON form), so the agent never goes on with an unrecorded result.
   */
  record(actionType: RecordedActionType, payload: unknown, name: string): void {
    let entry: RecordedEntry;
    try {
      const hashed = this.#redact === undefined ? payload : this.#redact(payload, actionType);
      const { actionHash, receipt } = this.#attestor.record({
        actionType,
        payload: hashed,
        privacyMode: this.#privacyMode,
      });
      // A batch that fails stays in the queue for the next start; `onRecord` hands the promise on.
      receipt.catch(() => {});
      entry = { actionType, payload: hashed, actionHash, receipt };
    } catch (error) {
      throw new AbasError(ABAS_SDK__TOOL_CALL_NOT_RECORDED, {
        tool: name,
        reason: error instanceof Error ? error.message : String(error),
      });
    }
    this.#onRecord?.(entry);
  }

  /** Runs a tool and records its call, finished or failed, before handing its outcome back. */
  async runTool<T>(kind: string, tool: string, args: unknown, run: () => PromiseLike<T> | T): Promise<T> {
    const startedAt = new Date().toISOString();
    let result: T;
    try {
      result = await run();
    } catch (error) {
      const endedAt = new Date().toISOString();
      this.record(
        "ToolCall",
        { kind, tool, arguments: args, error: describeThrown(error), startedAt, endedAt },
        tool,
      );
      throw error;
    }
    const endedAt = new Date().toISOString();
    this.record(
      "ToolCall",
      {
        kind,
        tool,
        arguments: args,
        ...(result === undefined ? {} : { result }),
        startedAt,
        endedAt,
      } satisfies ToolCallPayload,
      tool,
    );
    return result;
  }
}
