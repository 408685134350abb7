/** A row of `attestations` in the contract's shape: camelCase, booleans, a nested batch part. */
import type { ApiAttestation } from "@abas/api-contract";

import type { AttestationRow } from "../schema.js";

export function toApiAttestation(row: AttestationRow): ApiAttestation {
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
