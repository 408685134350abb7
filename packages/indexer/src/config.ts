/**
 * The indexer's settings, from environment variables, checked by one zod schema. Empty variables
 * count as unset, so `FOO=` in an env file falls back to the default instead of failing.
 */
import { join } from "node:path";

import { isAddress, type Address, type Commitment } from "@solana/kit";
import { z } from "zod";

import { DEFAULT_LEASE_MS } from "./leadership/leader-lease-row.js";
import { LOG_LEVELS, type LogLevel } from "./logger.js";

/** The program the local ledger (`@abas/ledger`) deploys. */
export const LOCAL_PROGRAM_ID = "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN" as Address;
export const DEFAULT_RPC_URL = "http://127.0.0.1:8899";
export const DEFAULT_DATA_DIR = ".data";
export const SQLITE_FILE_NAME = "abas.sqlite";
export const DEFAULT_POLL_INTERVAL_MS = 1000;

export type IndexerCommitment = Extract<Commitment, "confirmed" | "finalized">;

export type IndexerConfig = Readonly<{
  rpcUrl: string;
  wsUrl: string;
  programId: Address;
  /** A `postgres://` URL, or the SQLite file. */
  databaseUrl: string;
  pollIntervalMs: number;
  /** How long the leader lease lasts without renewal: the bound on a frozen leader's failover. */
  leaseMs: number;
  commitment: IndexerCommitment;
  logLevel: LogLevel;
}>;

const unsetIfEmpty = (value: unknown): unknown => (value === "" ? undefined : value);

const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" });
const wsUrl = z.url({ protocol: /^wss?$/, error: "must be a ws:// or wss:// URL" });

const EnvironmentSchema = z.object({
  RPC_URL: z.preprocess(unsetIfEmpty, httpUrl.default(DEFAULT_RPC_URL)),
  WS_URL: z.preprocess(unsetIfEmpty, wsUrl.optional()),
  PROGRAM_ID: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .refine((value) => isAddress(value), "must be a base58 Solana address")
      .default(LOCAL_PROGRAM_ID),
  ),
  DATABASE_URL: z.preprocess(unsetIfEmpty, z.string().optional()),
  DATA_DIR: z.preprocess(unsetIfEmpty, z.string().default(DEFAULT_DATA_DIR)),
  POLL_INTERVAL_MS: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(50).max(600_000).default(DEFAULT_POLL_INTERVAL_MS),
  ),
  LEADER_LEASE_MS: z.preprocess(
    unsetIfEmpty,
    z.coerce.number().int().min(1_000).max(600_000).default(DEFAULT_LEASE_MS),
  ),
  INDEXER_COMMITMENT: z.preprocess(unsetIfEmpty, z.enum(["confirmed", "finalized"]).default("finalized")),
  LOG_LEVEL: z.preprocess(
    (value) => (typeof value === "string" ? unsetIfEmpty(value.toLowerCase()) : value),
    z.enum(LOG_LEVELS).default("info"),
  ),
});

export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

/**
 * The WebSocket URL of an RPC URL, as Solana tools derive it: ws(s) instead of http(s), and an
 * explicit port plus one (the local ledger and solana-test-validator listen on 8899 and 8900).
 */
export function deriveWebSocketUrl(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
  if (url.port !== "") url.port = String(Number(url.port) + 1);
  return url.toString();
}

export function parseIndexerConfig(env: Readonly<Record<string, string | undefined>>): IndexerConfig {
  const parsed = EnvironmentSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")} ${issue.message}`);
    throw new ConfigError(`invalid configuration: ${problems.join("; ")}`);
  }
  const values = parsed.data;
  return {
    rpcUrl: values.RPC_URL,
    wsUrl: values.WS_URL ?? deriveWebSocketUrl(values.RPC_URL),
    programId: values.PROGRAM_ID as Address,
    databaseUrl: values.DATABASE_URL ?? join(values.DATA_DIR, SQLITE_FILE_NAME),
    pollIntervalMs: values.POLL_INTERVAL_MS,
    leaseMs: values.LEADER_LEASE_MS,
    commitment: values.INDEXER_COMMITMENT,
    logLevel: values.LOG_LEVEL,
  };
}
