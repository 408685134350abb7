/** `node:util` parseArgs with the global options added and its errors turned into usage errors. */
import { parseArgs, type ParseArgsConfig } from "node:util";

import { isAddress } from "@solana/kit";

import { UsageError } from "./usage-error.js";

export const DEFAULT_RPC_URL = "http://127.0.0.1:8899";
export const DEFAULT_API_URL = "http://127.0.0.1:8080";

type OptionsConfig = NonNullable<ParseArgsConfig["options"]>;

export const GLOBAL_OPTIONS = {
  "rpc-url": { type: "string" },
  "api-url": { type: "string" },
  "program-id": { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const satisfies OptionsConfig;

export const GLOBAL_OPTIONS_HELP = `Global options:
  --rpc-url <url>      ledger JSON-RPC (env RPC_URL, default ${DEFAULT_RPC_URL})
  --api-url <url>      ABAS REST API (env ABAS_API_URL, default ${DEFAULT_API_URL})
  --program-id <addr>  ABAS program (env PROGRAM_ID, default the local ledger's)
  --json               print one JSON document on stdout and nothing else
  -h, --help           this help`;

export function parseOptions<const T extends OptionsConfig>(args: readonly string[], options: T) {
  try {
    return parseArgs({
      args: [...args],
      options: { ...GLOBAL_OPTIONS, ...options },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs throws TypeErrors with an ERR_PARSE_ARGS_* code for unknown or ill-typed options.
    if (error instanceof TypeError && "code" in error) throw new UsageError(error.message);
    throw error;
  }
}

export type GlobalSettings = Readonly<{
  rpcUrl: string;
  apiUrl: string;
  programId: string | undefined;
  json: boolean;
}>;

function httpUrl(value: string, name: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${name} "${value}" is not a URL; give an http:// or https:// address`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`${name} must be an http:// or https:// URL, got ${url.protocol}`);
  }
  return value.replace(/\/+$/, "");
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === "" ? undefined : value;

/** Flags win over the environment, which wins over the defaults. */
export function resolveGlobalSettings(
  values: { "rpc-url"?: string; "api-url"?: string; "program-id"?: string; json?: boolean },
  env: NodeJS.ProcessEnv,
): GlobalSettings {
  const rpcUrl = httpUrl(values["rpc-url"] ?? nonEmpty(env.RPC_URL) ?? DEFAULT_RPC_URL, "--rpc-url");
  const apiUrl = httpUrl(values["api-url"] ?? nonEmpty(env.ABAS_API_URL) ?? DEFAULT_API_URL, "--api-url");
  const programId = values["program-id"] ?? nonEmpty(env.PROGRAM_ID);
  if (programId !== undefined && !isAddress(programId)) {
    throw new UsageError(`--program-id "${programId}" is not a base58 Solana address`);
  }
  return { rpcUrl, apiUrl, programId, json: values.json === true };
}

export function requireOption(value: string | undefined, option: string, what: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing ${option} <${what}>`);
  return value;
}

export function assertNoPositionals(positionals: readonly string[], allowed = 0): void {
  if (positionals.length > allowed) throw new UsageError(`unexpected argument "${positionals[allowed]}"`);
}
