/**
 * What a page or a share link about a lookup speaks for. One transaction can record several
 * attestations (single ones, the items of several batches, of several agents): a receipt speaks
 * for the first one's own, the whole batch it is an item of (its items in the transaction, under
 * its batch account, which one agent's root names) or the single attestation, and names the
 * others as others, never as part of it.
 */
import type { ApiAttestation as IndexedAttestation, ApiAttestationLookup } from "@abas/api-contract";

export interface LookupSubject {
  readonly records: readonly IndexedAttestation[];
  /** The records are every item of one batch that the looked-up transaction recorded. */
  readonly wholeBatch: boolean;
  /** The lookup's other records: attestations of the same transaction outside the subject. */
  readonly others: readonly IndexedAttestation[];
}

export function subjectOf(lookup: ApiAttestationLookup): LookupSubject {
  const first = lookup.data[0]!;
  const batch = first.batch;
  const wholeBatch = lookup.matchedBy === "txSignature" && batch !== null;
  const inSubject = (record: IndexedAttestation): boolean =>
    wholeBatch ? record.batch?.address === batch.address : record === first;
  return {
    records: lookup.data.filter(inSubject),
    wholeBatch,
    others: lookup.data.filter((record) => !inSubject(record)),
  };
}
