/** What a lookup did not find or did not search, and why: a kind to act on, a sentence to show. */
export type LookupNoteKind =
  | "not-indexed"
  | "index-points-elsewhere"
  | "batch-items-not-searched"
  | "agent-not-registered"
  | "other-agent"
  | "not-in-batch"
  | "item-not-published"
  | "transaction-failed"
  | "transaction-wrote-none"
  | "too-many-candidates"
  | "index-page-full"
  | "payload-json-ambiguous";

export type LookupNote = Readonly<{ kind: LookupNoteKind; message: string }>;

export const note = (kind: LookupNoteKind, message: string): LookupNote => ({ kind, message });

/** Notes that say part of the search could not run: "not attested" then means "not found". */
export const INCOMPLETE_SEARCH: ReadonlySet<LookupNoteKind> = new Set([
  "batch-items-not-searched",
  "too-many-candidates",
  "index-page-full",
]);
