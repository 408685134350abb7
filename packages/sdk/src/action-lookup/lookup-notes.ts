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
  | "payload-json-ambiguous";

export type LookupNote = Readonly<{ kind: LookupNoteKind; message: string }>;

export const note = (kind: LookupNoteKind, message: string): LookupNote => ({ kind, message });
