/**
 * Turns any failure into a message on stderr that names the problem and the fix, and an exit code:
 * 2 for bad usage or configuration (including input the SDK rejects before any network call),
 * 1 for everything that failed while running (a program error, an unreachable node, ...).
 */
import * as errors from "@abas/errors";
import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_ALREADY_REGISTERED,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__AGENT_SUSPENDED,
  ABAS_PROGRAM__DUPLICATE_ATTESTATION,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_RUNTIME__AGENT_NOT_REGISTERED,
  ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT,
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_RUNTIME__TRANSACTION_FAILED,
  ERROR_CODE_RANGES,
  getProgramErrorName,
  isAbasError,
  type AbasError,
} from "@abas/errors";

import type { CliIo } from "./cli-io.js";
import { DEFAULT_RPC_URL } from "./parse-options.js";
import { CommandFailure, UsageError } from "./usage-error.js";

export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

/** `ABAS_PROGRAM__AGENT_SUSPENDED` for 1202. */
export function getErrorCodeName(code: number): string {
  return errors.getAbasErrorCodeName(code);
}

export type ErrorSettings = Readonly<{ rpcUrl?: string; apiUrl?: string; programId?: string }>;

/** How the ledger refuses a transaction whose program it does not hold as an executable account. */
const NO_PROGRAM_ERRORS = new Set(["InvalidProgramForExecution", "ProgramAccountNotFound"]);

function hintFor(error: AbasError, settings: ErrorSettings): string | undefined {
  switch (error.code) {
    case ABAS_PROGRAM__AGENT_SUSPENDED:
      return "reactivate it first: abas agent update --operator <keypair> --agent <agent> --status active";
    case ABAS_PROGRAM__AGENT_REVOKED:
      return "a revoked agent stays revoked; register a new agent key (abas keygen, abas agent register)";
    case ABAS_PROGRAM__NOT_AGENT_OPERATOR:
      return "use the operator key that registered the agent (see: abas agent show <agent>)";
    case ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED:
      return "allow the type first: abas agent update ... --types <types>";
    case ABAS_PROGRAM__AGENT_ALREADY_REGISTERED:
      return "the agent is registered already; see it with: abas agent show <agent>";
    case ABAS_PROGRAM__DUPLICATE_ATTESTATION:
      return "this action hash is attested already; verify it with: abas verify --hash <hex> --agent <agent>";
    case ABAS_RUNTIME__AGENT_NOT_REGISTERED:
      return (
        "register it first: abas agent register --operator <keypair> --agent <keypair>" +
        (settings.programId === undefined
          ? ""
          : `; or, if it is registered, check that --program-id (PROGRAM_ID) ${settings.programId} is the program it was registered with`)
      );
    case ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE:
    case ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT:
      return "fund the operator: abas airdrop <operator keypair> (a local ledger, devnet or testnet), or transfer SOL to it";
    case ABAS_RUNTIME__RPC_REQUEST_FAILED:
      return isUnexpectedRpcAnswer(error)
        ? `${shownLedger(settings)} answers, but not as a Solana JSON-RPC node: point --rpc-url (RPC_URL) at one (npm start serves the local ledger at ${DEFAULT_RPC_URL})`
        : ledgerHint(settings);
    case ABAS_RUNTIME__TRANSACTION_FAILED:
      return NO_PROGRAM_ERRORS.has(String((error.context as { transactionError?: unknown }).transactionError))
        ? `no program is deployed at ${settings.programId ?? "the local ledger's program ID"} on ${shownLedger(settings)}: ` +
            "check --program-id (PROGRAM_ID) and --rpc-url (RPC_URL); npm start deploys the program on its local ledger"
        : undefined;
    case ABAS_RUNTIME__BATCH_LEAVES_NOT_PUBLISHED:
      return "run the batch's remaining leaves again once the ledger is reachable (AttestationClient.completeBatch)";
    default:
      return undefined;
  }
}

/**
 * The RPC URL as messages show it: its scheme and host, and `/…` where a path or a query may hold
 * a provider's API key (as the SDK shows URLs in its errors).
 */
export function shownLedger(settings: ErrorSettings): string {
  if (settings.rpcUrl === undefined) return "the RPC URL";
  try {
    const url = new URL(settings.rpcUrl);
    const more = (url.pathname !== "/" && url.pathname !== "") || url.search !== "" || url.username !== "";
    return `${url.protocol}//${url.host}${more ? "/…" : ""}`;
  } catch {
    return settings.rpcUrl;
  }
}

/** What to do when the ledger does not answer. */
export function ledgerHint(settings: ErrorSettings): string {
  return `is the ledger running at ${shownLedger(settings)}? Start one (npm start in the ABAS repository, or npx abas-ledger), or point --rpc-url (RPC_URL) at a running node`;
}

function isUsageCode(code: number): boolean {
  return code >= ERROR_CODE_RANGES.ABAS_SDK.min && code <= ERROR_CODE_RANGES.ABAS_SDK.max;
}

/**
 * An answer that is no Solana node's (the SDK's UnexpectedRpcAnswer, told by its name so that
 * reporting an error does not load the SDK), however deep in the cause chain.
 */
function isUnexpectedRpcAnswer(error: unknown): boolean {
  return causeChain(error).some((current) => current.name === "UnexpectedRpcAnswer");
}

/** A failed fetch (connection refused, unknown host), however deep in the cause chain. */
export function isConnectionFailure(error: unknown): boolean {
  return causeChain(error).some((current) => {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && /^(ECONNREFUSED|ENOTFOUND|ECONNRESET|EAI_AGAIN|ETIMEDOUT)$/.test(code))
      return true;
    if (current.message === "fetch failed") return true;
    // kit's SolanaError for an HTTP transport failure
    return /HTTP error|fetch failed|ECONNREFUSED/.test(current.message);
  });
}

/** `error` and its causes, up to 8 deep, while they are Errors. */
function causeChain(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let current = error; current instanceof Error && chain.length < 8; current = current.cause) {
    chain.push(current);
  }
  return chain;
}

export type ErrorReport = Readonly<{
  exitCode: number;
  message: string;
  hint?: string;
  code?: number;
  codeName?: string;
  programErrorName?: string;
  details?: Readonly<Record<string, unknown>>;
}>;

export function describeFailure(error: unknown, settings: ErrorSettings = {}): ErrorReport {
  if (error instanceof UsageError) return { exitCode: EXIT_USAGE, message: error.message };
  if (error instanceof CommandFailure) {
    return {
      exitCode: EXIT_FAILED,
      message: error.message,
      details: error.details,
      ...(error.hint === undefined ? {} : { hint: error.hint }),
    };
  }
  if (isAbasError(error)) {
    const programErrorName = getProgramErrorName(error.code);
    const hint = hintFor(error, settings) ?? (isConnectionFailure(error) ? ledgerHint(settings) : undefined);
    const unreachable = error.code === ABAS_RUNTIME__RPC_REQUEST_FAILED && isConnectionFailure(error);
    return {
      exitCode: isUsageCode(error.code) ? EXIT_USAGE : EXIT_FAILED,
      message: unreachable
        ? `cannot reach the ledger at ${shownLedger(settings)} (${error.message})`
        : error.message,
      code: error.code,
      codeName: getErrorCodeName(error.code),
      ...(programErrorName === undefined ? {} : { programErrorName }),
      ...(hint === undefined ? {} : { hint }),
    };
  }
  if (isConnectionFailure(error)) {
    return {
      exitCode: EXIT_FAILED,
      message: `cannot reach the ledger at ${shownLedger(settings)}`,
      hint: ledgerHint(settings),
    };
  }
  return { exitCode: EXIT_FAILED, message: error instanceof Error ? error.message : String(error) };
}

/** Writes the failure (stderr; and with --json, a JSON `error` document on stdout) and returns the exit code. */
export function reportFailure(
  error: unknown,
  io: CliIo,
  options: Readonly<{ command: string; usage?: string; json?: boolean; settings?: ErrorSettings }>,
): number {
  const report = describeFailure(error, options.settings);
  const codePart =
    report.code === undefined
      ? ""
      : ` [${report.codeName} ${report.code}${report.programErrorName === undefined ? "" : `, program error ${report.programErrorName}`}]`;
  const lines = [`abas ${options.command}: ${report.message}${codePart}`];
  if (report.hint !== undefined) lines.push(`  fix: ${report.hint}`);
  const showUsage =
    error instanceof UsageError && error.showUsage && options.usage !== undefined && options.json !== true;
  if (showUsage) lines.push("", options.usage!);
  else if (error instanceof UsageError) lines.push(`  see: abas ${options.command} --help`);
  io.err(lines.join("\n"));
  if (options.json === true) {
    const { exitCode: _exitCode, ...body } = report;
    io.out(JSON.stringify({ ok: false, error: body }, null, 2));
  }
  return report.exitCode;
}
