/** What the read side returns for one attestation: camelCase, booleans, a nested batch part. */
import type { AttestationRow } from "../schema.js";
import type { ActionTypeName } from "./action-types.js";

export interface AttestationBatchPart {
  /** The batch commitment account. */
  readonly address: string;
  /** The item's position in the batch, 0-based. */
  readonly index: number;
  /** The Merkle root the agent signed (hex). */
  readonly merkleRoot: string;
}

export interface AttestationRecord {
  /** The attestation account address, or `<batch address>:<index>` for a batch item. */
  readonly id: string;
  readonly kind: "single" | "batch";
  readonly agent: string;
  readonly operator: string;
  readonly actionType: ActionTypeName;
  /** True when `storedHash` is a salted commitment rather than the action hash itself. */
  readonly privacy: boolean;
  /** What the ledger stores (hex): the action hash, or its commitment in privacy mode. */
  readonly storedHash: string;
  /** The agent's Ed25519 signature (base58) of the attest message, or of the batch root. */
  readonly agentSignature: string;
  /** The transaction that recorded it; for a batch item, the batch commit transaction. */
  readonly txSignature: string;
  readonly slot: number;
  /** The ledger's unix time (seconds) when it was recorded. */
  readonly timestamp: number;
  /** Set for a batch item, null for a single attestation. */
  readonly batch: AttestationBatchPart | null;
}

export function toAttestationRecord(row: AttestationRow): AttestationRecord {
  const isBatchItem = row.batch_address !== null && row.batch_index !== null && row.merkle_root !== null;
  return {
    id: row.id,
    kind: row.kind,
    agent: row.agent,
    operator: row.operator,
    actionType: row.action_type,
    privacy: Number(row.privacy) === 1,
    storedHash: row.stored_hash,
    agentSignature: row.agent_signature,
    txSignature: row.tx_signature,
    slot: Number(row.slot),
    timestamp: Number(row.timestamp),
    batch: isBatchItem
      ? { address: row.batch_address!, index: Number(row.batch_index), merkleRoot: row.merkle_root! }
      : null,
  };
}
