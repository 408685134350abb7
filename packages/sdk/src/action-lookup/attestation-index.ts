/**
 * Where attestations of a stored hash are recorded, as an index knows it. The ledger has no
 * lookup by hash across agents, so finding who attested a hash needs an index: the REST API
 * (`ApiClient`) or the service's database implement this. What an index says only points at
 * ledger accounts; every answer is then read and checked on the ledger.
 */
import type { ApiAttestation } from "@abas/api-contract";

export type IndexedAttestationRef = Readonly<{
  /** The attestation account, or for a batch item the batch account. */
  address: string;
  /** The item's position in its batch, or null for a single attestation. */
  batchIndex: number | null;
  /** The recording transaction (for a batch item, the batch commit). */
  txSignature: string;
  agent: string;
}>;

export type AttestationIndexQuery = Readonly<{
  /** The action hash, or in privacy mode its commitment, as the ledger stores it (hex). */
  storedHash: string;
  /** Only this agent's attestations. */
  agent?: string;
  /** At most this many in one page (the REST API lists up to 100). */
  limit: number;
  /** The previous page's `nextCursor`. */
  cursor?: string;
}>;

export type IndexedAttestationPage = Readonly<{
  /** Newest first. */
  entries: readonly IndexedAttestationRef[];
  /** Null on the last page. */
  nextCursor: string | null;
}>;

export interface AttestationIndex {
  findAttestations(query: AttestationIndexQuery): Promise<IndexedAttestationPage>;
}

/** Where an attestation as the REST API (or the service's database) gives it is recorded. */
export function indexedAttestationRef(record: ApiAttestation): IndexedAttestationRef {
  return {
    address: record.batch?.address ?? record.id,
    batchIndex: record.batch?.index ?? null,
    txSignature: record.txSignature,
    agent: record.agent,
  };
}
