/**
 * Failures a tool reports to the model as an `isError` result. Every message says what went wrong
 * and what to do about it, because the model (or its user) has to recover from it alone.
 */
import {
  ABAS_API__AGENT_NOT_FOUND,
  ABAS_API__API_KEY_MALFORMED,
  ABAS_API__API_KEY_MISSING,
  ABAS_API__API_KEY_REVOKED,
  ABAS_API__API_KEY_UNKNOWN,
  ABAS_API__ATTESTATION_NOT_FOUND,
  ABAS_API__INVALID_CURSOR,
  ABAS_API__INVALID_PARAMETER,
  ABAS_API__INVALID_TIME_RANGE,
  ABAS_API__NETWORK_ERROR,
  ABAS_API__RATE_LIMITED,
  ABAS_API__REQUEST_TIMEOUT,
  isAbasError,
} from "@abas/errors";

import type { McpServerConfig } from "./config.js";

export type ToolFailureKind =
  | "invalid_input"
  | "not_found"
  | "missing_api_key"
  | "unauthorized"
  | "api_unreachable"
  | "api_error"
  | "ledger_unreachable"
  | "ledger_error"
  | "rate_limited";

export class ToolFailure extends Error {
  override readonly name = "ToolFailure";

  constructor(
    readonly kind: ToolFailureKind,
    message: string,
  ) {
    super(message);
  }
}

export const KEY_COMMAND = "npm run keys -- create --name mcp";

/** A field of the tool's input is wrong: which one, and what it must look like. */
export function invalidInput(field: string, problem: string): ToolFailure {
  return new ToolFailure("invalid_input", `Invalid input: \`${field}\` ${problem}`);
}

export function missingApiKey(config: McpServerConfig, needFor: string): ToolFailure {
  return new ToolFailure(
    "missing_api_key",
    `${needFor} needs the ABAS REST API, and no API key is configured. Create one in the ABAS ` +
      `repository with \`${KEY_COMMAND}\` (it prints the key once), then set ABAS_API_KEY in the ` +
      `"env" of this server's entry in the MCP config and restart the host. ABAS_API_URL=${config.apiUrl}`,
  );
}

function apiUnreachable(config: McpServerConfig, reason: string): ToolFailure {
  return new ToolFailure(
    "api_unreachable",
    `The ABAS REST API did not answer (${reason}). Is \`npm start\` running? ` +
      `ABAS_API_URL=${config.apiUrl}; set it to the address \`npm start\` prints (without /api/v1 is fine).`,
  );
}

function causeText(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  const inner = (cause as { cause?: unknown } | undefined)?.cause;
  const deepest = (inner ?? cause) as { code?: unknown; message?: unknown } | undefined;
  if (typeof deepest?.code === "string") return deepest.code;
  if (typeof deepest?.message === "string") return deepest.message;
  return error instanceof Error ? error.message : String(error);
}

export type ApiErrorSubject = Readonly<{ agent?: string; field?: Record<string, string> }>;

/**
 * The ApiClient's AbasError (or anything else it threw) as a ToolFailure. `subject` names what was
 * asked for, so a 404 says which agent, and `field` maps API parameter names to the tool's.
 */
export function fromApiError(
  error: unknown,
  config: McpServerConfig,
  subject: ApiErrorSubject = {},
): ToolFailure {
  if (error instanceof ToolFailure) return error;
  if (!isAbasError(error)) {
    return new ToolFailure("api_error", `The ABAS REST API call failed: ${String(error)}`);
  }
  const context = error.context as Record<string, unknown>;
  switch (error.code) {
    case ABAS_API__NETWORK_ERROR:
      return apiUnreachable(config, `no response: ${causeText(error)}`);
    case ABAS_API__REQUEST_TIMEOUT:
      return apiUnreachable(config, `no answer within ${String(context.timeoutMs)} ms`);
    case ABAS_API__API_KEY_MISSING:
    case ABAS_API__API_KEY_MALFORMED:
    case ABAS_API__API_KEY_UNKNOWN:
    case ABAS_API__API_KEY_REVOKED:
      return new ToolFailure(
        "unauthorized",
        `The ABAS REST API refused ABAS_API_KEY (${error.message}). Create a new key with ` +
          `\`${KEY_COMMAND}\` against the same service (same DATA_DIR or DATABASE_URL), set ` +
          `ABAS_API_KEY in this server's MCP config and restart the host. ABAS_API_URL=${config.apiUrl}`,
      );
    case ABAS_API__RATE_LIMITED:
      return new ToolFailure(
        "rate_limited",
        `The ABAS REST API rate limit for this key is reached; retry in ${String(context.retryAfterSeconds ?? "a few")} seconds.`,
      );
    case ABAS_API__AGENT_NOT_FOUND:
      return new ToolFailure(
        "not_found",
        `No agent ${subject.agent ?? "with that key"} is known to the ABAS index. Check that \`agent\` ` +
          `is the agent's public key (not its operator's wallet); an agent registered moments ago ` +
          `appears once the indexer has caught up, so retry shortly.`,
      );
    case ABAS_API__ATTESTATION_NOT_FOUND:
      return new ToolFailure("not_found", `No attestation is indexed under ${String(context.id)}.`);
    case ABAS_API__INVALID_PARAMETER: {
      const parameter = String(context.parameter);
      const field = subject.field?.[parameter] ?? parameter;
      return invalidInput(field, `was refused by the API: ${String(context.reason)}.`);
    }
    case ABAS_API__INVALID_CURSOR:
      return invalidInput(
        "cursor",
        "is not a cursor this API issued: pass `pagination.nextCursor` from the previous page unchanged, or omit it for the first page.",
      );
    case ABAS_API__INVALID_TIME_RANGE:
      return invalidInput("since", "must be earlier than `until`.");
    default:
      return new ToolFailure("api_error", `The ABAS REST API answered with an error: ${error.message}`);
  }
}

/** A failed JSON-RPC call to the ledger node. */
export function ledgerFailure(config: McpServerConfig, method: string, error: unknown): ToolFailure {
  const text = causeText(error);
  const transport =
    /fetch failed|ECONNREFUSED|ENOTFOUND|ECONNRESET|EAI_AGAIN|ETIMEDOUT|timed? ?out|abort|HTTP error/i.test(
      `${text} ${error instanceof Error ? error.message : ""}`,
    );
  if (transport) {
    return new ToolFailure(
      "ledger_unreachable",
      `The ledger's JSON-RPC node did not answer ${method} (${text}). Is \`npm start\` running (it ` +
        `serves the local ledger)? ABAS_RPC_URL=${config.shownRpcUrl}; set it to the RPC node of the ` +
        `ledger the action was attested on.`,
    );
  }
  return new ToolFailure(
    "ledger_error",
    `The ledger's JSON-RPC node refused ${method}: ${error instanceof Error ? error.message : text}. ABAS_RPC_URL=${config.shownRpcUrl}`,
  );
}
