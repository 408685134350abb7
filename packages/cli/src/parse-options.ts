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

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === "" ? undefined : value;

/** A setting from its flag, else its environment variable; `name` is where it came from, for errors. */
function setting(
  flagValue: string | undefined,
  flag: string,
  env: NodeJS.ProcessEnv,
  variable: string,
): { value: string; name: string } | undefined {
  if (flagValue !== undefined) return { value: flagValue, name: flag };
  const fromEnv = nonEmpty(env[variable]);
  return fromEnv === undefined ? undefined : { value: fromEnv, name: variable };
}

function httpUrl(given: { value: string; name: string } | undefined, fallback: string): string {
  if (given === undefined) return fallback;
  const { value, name } = given;
  let protocol: string | undefined;
  try {
    protocol = new URL(value).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== "http:" && protocol !== "https:") {
    throw new UsageError(`${name} "${value}" is not an http:// or https:// URL (e.g. ${fallback})`);
  }
  return value.replace(/\/+$/, "");
}

/** Flags win over the environment, which wins over the defaults. */
export function resolveGlobalSettings(
  values: { "rpc-url"?: string; "api-url"?: string; "program-id"?: string; json?: boolean },
  env: NodeJS.ProcessEnv,
): GlobalSettings {
  const rpcUrl = httpUrl(setting(values["rpc-url"], "--rpc-url", env, "RPC_URL"), DEFAULT_RPC_URL);
  const apiUrl = httpUrl(setting(values["api-url"], "--api-url", env, "ABAS_API_URL"), DEFAULT_API_URL);
  const programId = setting(values["program-id"], "--program-id", env, "PROGRAM_ID");
  if (programId !== undefined && !isAddress(programId.value)) {
    throw new UsageError(`${programId.name} "${programId.value}" is not a base58 Solana address`);
  }
  return { rpcUrl, apiUrl, programId: programId?.value, json: values.json === true };
}

export function requireOption(value: string | undefined, option: string, what: string): string {
  if (value === undefined || value === "") throw new UsageError(`missing ${option} <${what}>`);
  return value;
}

export function assertNoPositionals(positionals: readonly string[], allowed = 0): void {
  if (positionals.length > allowed) throw new UsageError(`unexpected argument "${positionals[allowed]}"`);
}
