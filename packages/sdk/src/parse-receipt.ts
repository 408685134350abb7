/**
 * Reads a receipt (as `attest` or `batchAttest` returned it, possibly after a trip through JSON)
 * into bytes and numbers, listing every field that is missing or malformed instead of throwing:
 * a verifier reports a bad receipt, it does not crash on one.
 */
import {
  actionTypesMask,
  getActionTypeFromName,
  hexToBytes,
  MAX_BATCH_ITEMS,
  SIGNATURE_SIZE,
  type ActionType,
} from "@abas/program-client";
import { getBase58Encoder, isAddress, isSignature, type Address, type Signature } from "@solana/kit";

type ParsedReceiptBase = Readonly<{
  programId: Address;
  agent: Address;
  operator: Address;
  actionType: ActionType;
  privacyMode: boolean;
  actionHash: Uint8Array;
  storedHash: Uint8Array;
  salt: Uint8Array | undefined;
  agentSignature: Uint8Array;
  txSignature: Signature;
  slot: number;
  timestamp: number;
  /** The attestation account, or the batch account for a batch item. */
  address: Address;
}>;

export type ParsedAttestationReceipt = ParsedReceiptBase & Readonly<{ kind: "attestation" }>;

export type ParsedBatchItemReceipt = ParsedReceiptBase &
  Readonly<{
    kind: "batch-item";
    index: number;
    itemCount: number;
    leafHash: Uint8Array;
    proof: Uint8Array[];
    merkleRoot: Uint8Array;
    batchActionTypes: number;
  }>;

export type ParsedReceipt = ParsedAttestationReceipt | ParsedBatchItemReceipt;

export type ReceiptParseResult =
  | Readonly<{ ok: true; receipt: ParsedReceipt }>
  | Readonly<{ ok: false; kind: ParsedReceipt["kind"] | undefined; problems: string[] }>;

class FieldReader {
  readonly problems: string[] = [];

  constructor(private readonly fields: Record<string, unknown>) {}

  #problem(field: string, expected: string): undefined {
    this.problems.push(`${field}: expected ${expected}`);
    return undefined;
  }

  has(field: string): boolean {
    return this.fields[field] !== undefined;
  }

  hex(field: string, byteLength: number): Uint8Array | undefined {
    const value = this.fields[field];
    if (typeof value !== "string" || !new RegExp(`^[0-9a-fA-F]{${byteLength * 2}}$`).test(value)) {
      return this.#problem(field, `${byteLength * 2} hexadecimal characters`);
    }
    return hexToBytes(value, byteLength);
  }

  hexList(field: string, byteLength: number): Uint8Array[] | undefined {
    const value = this.fields[field];
    const pattern = new RegExp(`^[0-9a-fA-F]{${byteLength * 2}}$`);
    if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && pattern.test(item))) {
      return this.#problem(field, `a list of ${byteLength * 2}-character hexadecimal strings`);
    }
    return (value as string[]).map((item) => hexToBytes(item, byteLength));
  }

  address(field: string): Address | undefined {
    const value = this.fields[field];
    return typeof value === "string" && isAddress(value) ? value : this.#problem(field, "a base58 address");
  }

  transactionSignature(field: string): Signature | undefined {
    const value = this.fields[field];
    return typeof value === "string" && isSignature(value)
      ? value
      : this.#problem(field, "a base58 transaction signature");
  }

  base58Signature(field: string): Uint8Array | undefined {
    const value = this.fields[field];
    if (typeof value === "string" && /^[1-9A-HJ-NP-Za-km-z]+$/.test(value)) {
      const bytes = getBase58Encoder().encode(value);
      if (bytes.length === SIGNATURE_SIZE) return Uint8Array.from(bytes);
    }
    return this.#problem(field, "a base58 Ed25519 signature (64 bytes)");
  }

  integer(field: string, min: number, max: number): number | undefined {
    const value = this.fields[field];
    return typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max
      ? value
      : this.#problem(field, `an integer from ${min} to ${max}`);
  }

  boolean(field: string): boolean | undefined {
    const value = this.fields[field];
    return typeof value === "boolean" ? value : this.#problem(field, "true or false");
  }

  actionType(field: string): ActionType | undefined {
    const value = this.fields[field];
    const actionType = typeof value === "string" ? getActionTypeFromName(value) : undefined;
    return actionType ?? this.#problem(field, "Transaction, ToolCall, Decision or ModelInvocation");
  }

  actionTypeMask(field: string): number | undefined {
    const value = this.fields[field];
    const actionTypes = Array.isArray(value)
      ? value.map((name) => (typeof name === "string" ? getActionTypeFromName(name) : undefined))
      : [];
    if (actionTypes.length === 0 || actionTypes.includes(undefined)) {
      return this.#problem(field, "a non-empty list of action type names");
    }
    return actionTypesMask(actionTypes as ActionType[]);
  }
}

const MAX_SLOT = Number.MAX_SAFE_INTEGER;

/** Every field of a receipt, checked for presence and form; the kind is told by `batchAddress`. */
export function parseReceipt(receipt: unknown): ReceiptParseResult {
  if (typeof receipt !== "object" || receipt === null || Array.isArray(receipt)) {
    return { ok: false, kind: undefined, problems: ["the receipt is not an object"] };
  }
  const reader = new FieldReader(receipt as Record<string, unknown>);
  const kind = reader.has("batchAddress") ? "batch-item" : "attestation";
  const privacyMode = reader.boolean("privacyMode");
  const base = {
    programId: reader.address("programId"),
    agent: reader.address("agent"),
    operator: reader.address("operator"),
    actionType: reader.actionType("actionType"),
    privacyMode,
    actionHash: reader.hex("actionHash", 32),
    storedHash: reader.hex("storedHash", 32),
    salt: privacyMode && reader.has("salt") ? reader.hex("salt", 32) : undefined,
    agentSignature: reader.base58Signature("agentSignature"),
    txSignature: reader.transactionSignature("txSignature"),
    slot: reader.integer("slot", 0, MAX_SLOT),
    timestamp: reader.integer("timestamp", Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    address: reader.address(kind === "batch-item" ? "batchAddress" : "attestationAddress"),
  };
  if (privacyMode === true && !reader.has("salt")) reader.problems.push("salt: required in privacy mode");
  if (privacyMode === false && reader.has("salt"))
    reader.problems.push("salt: only privacy-mode receipts have one");

  if (kind === "attestation") {
    if (reader.problems.length > 0) return { ok: false, kind, problems: reader.problems };
    return { ok: true, receipt: { kind, ...base } as ParsedAttestationReceipt };
  }
  const itemCount = reader.integer("itemCount", 1, MAX_BATCH_ITEMS);
  const batchFields = {
    index: reader.integer("index", 0, (itemCount ?? MAX_BATCH_ITEMS) - 1),
    itemCount,
    leafHash: reader.hex("leafHash", 32),
    proof: reader.hexList("proof", 32),
    merkleRoot: reader.hex("merkleRoot", 32),
    batchActionTypes: reader.actionTypeMask("batchActionTypes"),
  };
  if (reader.problems.length > 0) return { ok: false, kind, problems: reader.problems };
  return { ok: true, receipt: { kind, ...base, ...batchFields } as ParsedBatchItemReceipt };
}
