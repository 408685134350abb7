/**
 * The server's and the keys CLI's settings, from environment variables, checked by one zod schema.
 * Every variable is listed in .env.example. An empty variable counts as unset.
 */
import { join } from "node:path";

import { ABAS_API__INVALID_SERVER_CONFIG, AbasError } from "@abas/errors";
import { z } from "zod";

import {
  DEFAULT_FAILED_API_KEYS_PER_MINUTE,
  DEFAULT_HEALTH_SETTINGS,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
} from "./defaults.js";
import { LOG_LEVELS, type LogLevel } from "./logger.js";

const SQLITE_FILE_NAME = "abas.sqlite";

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** The load balancer's addresses (Fastify's trustProxy): addresses or CIDR ranges, comma-separated, or a named range. */
export const TrustProxySetting = z
  .string()
  .regex(
    /^[0-9A-Fa-f.:/,\s]+$|^(loopback|linklocal|uniquelocal)$/,
    "expected addresses or CIDR ranges, comma-separated",
  )
  .optional();

const DatabaseEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "expected a postgres:// or postgresql:// URL (leave it unset for SQLite)")
    .optional(),
  DATA_DIR: z.string().min(1).default(".data"),
});

const ServerEnv = DatabaseEnv.extend({
  PORT: integer(0, 65535).default(8080),
  HOST: z.string().min(1).default("127.0.0.1"),
  RPC_URL: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }).default("http://127.0.0.1:8899"),
  LOG_LEVEL: z.enum(LOG_LEVELS).default("info"),
  RATE_LIMIT_PER_MINUTE: integer(1, 1_000_000_000).default(DEFAULT_RATE_LIMIT_PER_MINUTE),
  FAILED_API_KEYS_PER_MINUTE: integer(1, 1_000_000_000).default(DEFAULT_FAILED_API_KEYS_PER_MINUTE),
  TRUST_PROXY: TrustProxySetting,
  DRAIN_DELAY_MS: integer(0, 300_000).default(0),
  HEALTH_TIMEOUT_MS: integer(50, 60_000).default(DEFAULT_HEALTH_SETTINGS.timeoutMs),
  INDEXER_STALE_AFTER_SECONDS: integer(1, 86_400).default(DEFAULT_HEALTH_SETTINGS.staleAfterSeconds),
  MAX_INDEXER_LAG_SLOTS: integer(0, 1_000_000).default(DEFAULT_HEALTH_SETTINGS.maxLagSlots),
});

export interface DatabaseConfig {
  /** A postgres:// URL, or the SQLite file `<DATA_DIR>/abas.sqlite`. */
  readonly databaseUrl: string;
}

export interface ServerConfig extends DatabaseConfig {
  readonly port: number;
  readonly host: string;
  readonly rpcUrl: string;
  readonly logLevel: LogLevel;
  readonly rateLimitPerMinute: number;
  readonly failedApiKeysPerMinute: number;
  /** Proxies whose X-Forwarded-For names the client; undefined: none. */
  readonly trustProxy: string | undefined;
  /** How long shutdown keeps serving with readiness at 503 before it stops listening. */
  readonly drainDelayMs: number;
  readonly health: {
    readonly timeoutMs: number;
    readonly staleAfterSeconds: number;
    readonly maxLagSlots: number;
  };
}

function withoutEmptyValues(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== "",
    ),
  );
}

function parseEnv<T extends z.ZodType>(schema: T, env: NodeJS.ProcessEnv): z.infer<T> {
  const result = schema.safeParse(withoutEmptyValues(env));
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new AbasError(ABAS_API__INVALID_SERVER_CONFIG, {
      variable: issue.path.join(".") || "environment",
      reason: issue.message,
    });
  }
  return result.data;
}

function databaseUrlOf(env: z.infer<typeof DatabaseEnv>): string {
  return env.DATABASE_URL ?? join(env.DATA_DIR, SQLITE_FILE_NAME);
}

export function loadDatabaseConfig(env: NodeJS.ProcessEnv): DatabaseConfig {
  return { databaseUrl: databaseUrlOf(parseEnv(DatabaseEnv, env)) };
}

export function loadServerConfig(env: NodeJS.ProcessEnv): ServerConfig {
  const parsed = parseEnv(ServerEnv, env);
  return {
    databaseUrl: databaseUrlOf(parsed),
    port: parsed.PORT,
    host: parsed.HOST,
    rpcUrl: parsed.RPC_URL,
    logLevel: parsed.LOG_LEVEL,
    rateLimitPerMinute: parsed.RATE_LIMIT_PER_MINUTE,
    failedApiKeysPerMinute: parsed.FAILED_API_KEYS_PER_MINUTE,
    trustProxy: parsed.TRUST_PROXY,
    drainDelayMs: parsed.DRAIN_DELAY_MS,
    health: {
      timeoutMs: parsed.HEALTH_TIMEOUT_MS,
      staleAfterSeconds: parsed.INDEXER_STALE_AFTER_SECONDS,
      maxLagSlots: parsed.MAX_INDEXER_LAG_SLOTS,
    },
  };
}
