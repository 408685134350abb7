export {
  indexedAttestationRef,
  type AttestationIndex,
  type AttestationIndexQuery,
  type IndexedAttestationPage,
  type IndexedAttestationRef,
} from "./attestation-index.js";
export {
  findAndVerifyAction,
  type ActionLookup,
  type ActionMatch,
  type ActionQuery,
} from "./find-and-verify-action.js";
export type { SearchedBy } from "./find-candidates.js";
export type { HashSource, HashToTry } from "./hashes-to-try.js";
export type { LookupNote, LookupNoteKind } from "./lookup-notes.js";
export { DEFAULT_MAX_CANDIDATES, DEFAULT_MAX_INDEX_ENTRIES, type LookupOptions } from "./lookup-options.js";
export { verifyAttestationAt, type AttestationLocation } from "./verify-attestation-at.js";
export type { ProofSource, VerifiedAttestation, VerifiedBatchItem } from "./verified-attestation.js";
