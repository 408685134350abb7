/**
 * Where attestations of a stored hash are recorded, as an index knows it. The ledger has no
 * lookup by hash across agents, so finding who attested a hash needs an index: the REST API
 * (`ApiClient`) or the service's database implement this. What an index says only points at
 * ledger accounts; every answer is then read and checked on the ledger.
 */
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
  limit: number;
}>;

export interface AttestationIndex {
  findAttestations(query: AttestationIndexQuery): Promise<readonly IndexedAttestationRef[]>;
}
