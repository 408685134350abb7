import { ABAS_SDK__INVALID_CLIENT_CONFIG, AbasError } from "@abas/errors";
import { address, isAddress, type Address, type Commitment } from "@solana/kit";

import { DEFAULT_COMPUTE_UNIT_MARGIN } from "./compute-budget.js";
import type { KeypairSource } from "./keypair.js";
import { DEFAULT_REQUEST_TIMEOUT_MS } from "./rpc-transport.js";

/** The program the local ledger (`@abas/ledger`) deploys: its key is committed in packages/ledger/keys. */
export const LOCAL_PROGRAM_ID: Address = address("5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN");

export type AttestationClientConfig = Readonly<{
  /** HTTP(S) address of a Solana JSON-RPC node. No WebSocket is needed. */
  rpcUrl: string;
  /** The agent's key: it signs every attestation. */
  agentKeypair: KeypairSource;
  /** The ABAS program; defaults to `LOCAL_PROGRAM_ID`. */
  programId?: string;
  /** How final a transaction must be before a call returns; default `"confirmed"`. */
  commitment?: Commitment;
  /** Price per compute unit in micro-lamports (a priority fee); default none. */
  priorityFeeMicroLamports?: number | bigint;
  /** The compute-unit limit is the simulated consumption times `1 + computeUnitMargin`; default 0.2. */
  computeUnitMargin?: number;
  /** How long to wait for a transaction to reach the commitment; default 60 000 ms. */
  confirmationTimeoutMs?: number;
  /** How long one JSON-RPC request waits for the node's answer before it fails; default 30 000 ms. */
  requestTimeoutMs?: number;
  /**
   * Sends of one transaction, each with a fresh blockhash, before an expired blockhash is an error;
   * default 3. (A batch's later transactions first try the blockhash of its earlier ones, uncounted.)
   */
  maxSendAttempts?: number;
}>;

export type ResolvedClientSettings = Readonly<{
  rpcUrl: string;
  programId: Address;
  commitment: Commitment;
  priorityFeeMicroLamports: bigint | undefined;
  computeUnitMargin: number;
  confirmationTimeoutMs: number;
  requestTimeoutMs: number;
  maxSendAttempts: number;
}>;

export const DEFAULT_COMMITMENT: Commitment = "confirmed";
export const DEFAULT_CONFIRMATION_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_SEND_ATTEMPTS = 3;
const MAX_COMPUTE_UNIT_MARGIN = 10;
const MAX_U64 = (1n << 64n) - 1n;
const COMMITMENTS: readonly Commitment[] = ["processed", "confirmed", "finalized"];

function invalidConfig(field: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_CLIENT_CONFIG, { field, reason });
}

export function parseRpcUrl(value: unknown): string {
  if (typeof value !== "string") throw invalidConfig("rpcUrl", "expected the RPC node's http(s) URL");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidConfig("rpcUrl", "not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalidConfig("rpcUrl", `expected http: or https:, got ${url.protocol}`);
  }
  // fetch refuses such a URL, and names it whole, password included, in its error.
  if (url.username !== "" || url.password !== "") {
    throw invalidConfig(
      "rpcUrl",
      "a user name or password in the URL is not supported; give the node's key as its provider documents (in the path or the query)",
    );
  }
  return value;
}

export function parseProgramId(value: unknown): Address {
  if (value === undefined) return LOCAL_PROGRAM_ID;
  if (typeof value !== "string" || !isAddress(value)) {
    throw invalidConfig("programId", "expected a base58 Solana address");
  }
  return value;
}

export function parseCommitment(value: unknown): Commitment {
  if (value === undefined) return DEFAULT_COMMITMENT;
  if (!COMMITMENTS.includes(value as Commitment)) {
    throw invalidConfig("commitment", `expected one of ${COMMITMENTS.join(", ")}`);
  }
  return value as Commitment;
}

function parsePriorityFee(value: unknown): bigint | undefined {
  if (value === undefined) return undefined;
  const isWhole = (typeof value === "number" && Number.isSafeInteger(value)) || typeof value === "bigint";
  if (!isWhole || BigInt(value) < 0n || BigInt(value) > MAX_U64) {
    throw invalidConfig("priorityFeeMicroLamports", "expected a whole number of micro-lamports, 0 or more");
  }
  return BigInt(value);
}

function parseNumberInRange(
  value: unknown,
  field: string,
  fallback: number,
  { min, max, integer }: { min: number; max: number; integer: boolean },
): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max) {
    throw invalidConfig(field, `expected a number from ${min} to ${max}`);
  }
  if (integer && !Number.isInteger(value)) throw invalidConfig(field, "expected a whole number");
  return value;
}

/** Checks every setting except the key pair (which `prepareKeypair` checks) and fills in defaults. */
export function resolveClientSettings(config: AttestationClientConfig): ResolvedClientSettings {
  if (typeof config !== "object" || config === null) throw invalidConfig("config", "expected an object");
  return {
    rpcUrl: parseRpcUrl(config.rpcUrl),
    programId: parseProgramId(config.programId),
    commitment: parseCommitment(config.commitment),
    priorityFeeMicroLamports: parsePriorityFee(config.priorityFeeMicroLamports),
    computeUnitMargin: parseNumberInRange(
      config.computeUnitMargin,
      "computeUnitMargin",
      DEFAULT_COMPUTE_UNIT_MARGIN,
      {
        min: 0,
        max: MAX_COMPUTE_UNIT_MARGIN,
        integer: false,
      },
    ),
    confirmationTimeoutMs: parseNumberInRange(
      config.confirmationTimeoutMs,
      "confirmationTimeoutMs",
      DEFAULT_CONFIRMATION_TIMEOUT_MS,
      { min: 1, max: 3_600_000, integer: true },
    ),
    requestTimeoutMs: parseNumberInRange(
      config.requestTimeoutMs,
      "requestTimeoutMs",
      DEFAULT_REQUEST_TIMEOUT_MS,
      { min: 1, max: 3_600_000, integer: true },
    ),
    maxSendAttempts: parseNumberInRange(
      config.maxSendAttempts,
      "maxSendAttempts",
      DEFAULT_MAX_SEND_ATTEMPTS,
      {
        min: 1,
        max: 10,
        integer: true,
      },
    ),
  };
}
