/**
 * The server's settings, from environment variables (the `env` block of the host's MCP config).
 * An empty value counts as unset, so a config with `"ABAS_API_KEY": ""` starts without a key.
 */
import { LOCAL_PROGRAM_ID } from "@abas/sdk";
import { isAddress, type Address } from "@solana/kit";
import { z } from "zod";

import { LOG_LEVELS, type LogLevel } from "./logger.js";

export const DEFAULT_API_URL = "http://127.0.0.1:8080";
export const DEFAULT_RPC_URL = "http://127.0.0.1:8899";

/** `abas_` followed by the base58 text of 32 random bytes (docs/api.md). */
export const API_KEY_PATTERN = /^abas_[1-9A-HJ-NP-Za-km-z]{32,44}$/;

const httpUrl = (what: string) =>
  z.string().refine((value) => {
    try {
      return ["http:", "https:"].includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `expected the http(s) URL of ${what}`);

const Environment = z.object({
  ABAS_API_URL: httpUrl("the ABAS REST API, e.g. http://127.0.0.1:8080").default(DEFAULT_API_URL),
  ABAS_API_KEY: z
    .string()
    .regex(API_KEY_PATTERN, "expected an ABAS API key: abas_ followed by 32 to 44 base58 characters")
    .optional(),
  ABAS_RPC_URL: httpUrl("a Solana JSON-RPC node, e.g. http://127.0.0.1:8899").default(DEFAULT_RPC_URL),
  ABAS_PROGRAM_ID: z
    .string()
    .refine(isAddress, "expected the base58 address of the ABAS program")
    .default(LOCAL_PROGRAM_ID),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
});

export interface McpServerConfig {
  readonly apiUrl: string;
  /** Undefined: the tools that need the REST API explain how to create a key. */
  readonly apiKey: string | undefined;
  readonly rpcUrl: string;
  /**
   * The ledger's address as answers, links and logs show it: a provider's credentials (in the
   * user part, the path or the query) never reach the model, the Explorer or the host's logs.
   */
  readonly shownRpcUrl: string;
  readonly programId: Address;
  readonly logLevel: LogLevel;
}

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export function loadConfig(env: NodeJS.ProcessEnv): McpServerConfig {
  const set = Object.fromEntries(
    Object.keys(Environment.shape)
      .map((name) => [name, env[name]?.trim()] as const)
      .filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = Environment.safeParse(set);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      // Never echo the key itself: it may be a real key pasted with a typo.
      const shown = name === "ABAS_API_KEY" ? "" : ` (got ${JSON.stringify(set[name])})`;
      return `${name}: ${issue.message}${shown}`;
    });
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  return {
    apiUrl: e.ABAS_API_URL,
    apiKey: e.ABAS_API_KEY,
    rpcUrl: e.ABAS_RPC_URL,
    shownRpcUrl: withoutCredentials(e.ABAS_RPC_URL),
    programId: e.ABAS_PROGRAM_ID as Address,
    logLevel: e.LOG_LEVEL,
  };
}

/** `https://host:port`, and `/[hidden]` or `?[hidden]` where the path or the query may hold a key. */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  const path = parsed.pathname === "/" || parsed.pathname === "" ? "" : "/[hidden]";
  const query = parsed.search === "" ? "" : "?[hidden]";
  return `${parsed.protocol}//${parsed.host}${path}${query}`;
}
