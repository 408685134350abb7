/**
 * What a share link says about a transaction or an attestation, once: the Action's title,
 * description and label and the receipt card's lines are all made from these facts.
 */
import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";

import { formatUtc, shortKey } from "../html/format.js";
import type { LedgerVerification } from "../ledger/verify-record.js";
import type { LookupSubject } from "./lookup-subject.js";

export type ShareStatus = "verified" | "failed" | "unavailable" | "not-found";

export interface ReceiptFacts {
  readonly status: ShareStatus;
  /** "ToolCall", "Batch of 3 actions", "No attestation found". */
  readonly heading: string;
  readonly title: string;
  readonly description: string;
  /** The (disabled) button's text. */
  readonly label: string;
  /** Label and value pairs for the card; `mono` values are keys and hashes. */
  readonly rows: readonly { label: string; value: string; mono?: boolean }[];
  /** The error of an unknown transaction. */
  readonly error?: string;
}

const VERIFIED_SINGLE =
  "Verified on the Solana ledger: the attestation account exists at its derived address, is owned by the ABAS program, its fields match and the agent's Ed25519 signature verifies.";
const VERIFIED_BATCH =
  "Verified on the Solana ledger: the batch account exists at its derived address, is owned by the ABAS program and complete, its fields match, the agent's Ed25519 signature of the root verifies and the item's Merkle proof leads to that root.";

const STATUS_SENTENCES: Record<Exclude<ShareStatus, "not-found" | "verified">, string> = {
  failed: "NOT verified: the ledger does not confirm this attestation",
  unavailable: "Verification status unknown: the ledger did not answer",
};

const LABELS: Record<ShareStatus, string> = {
  verified: "Verified on the ledger",
  failed: "Not verified",
  unavailable: "Ledger unreachable",
  "not-found": "Receipt not found",
};

function failedReasons(verification: LedgerVerification): string {
  const reasons = verification.checks
    .filter((check) => check.outcome === "failed")
    .map((check) => check.detail ?? check.label);
  if (verification.status === "unavailable") return verification.problem ?? "";
  return reasons.join("; ");
}

function statusSentence(verification: LedgerVerification, batch: boolean): string {
  const status = verification.status;
  if (status === "verified") return batch ? VERIFIED_BATCH : VERIFIED_SINGLE;
  return `${STATUS_SENTENCES[status]} (${failedReasons(verification)}).`;
}

function countByType(records: readonly IndexedAttestation[]): string {
  const counts = new Map<string, number>();
  for (const record of records) counts.set(record.actionType, (counts.get(record.actionType) ?? 0) + 1);
  return [...counts].map(([type, count]) => `${type} ×${count}`).join(", ");
}

/**
 * What names a transaction's attestations outside the receipt, if any: a sentence for the
 * description, and a few words after the heading (the card has no room for another row).
 */
function othersNote(others: readonly IndexedAttestation[]): { sentence: string; heading: string } {
  if (others.length === 0) return { sentence: "", heading: "" };
  const plural = others.length === 1 ? "" : "s";
  return {
    sentence: ` The same transaction recorded ${others.length} other attestation${plural} (${countByType(others)}), which this receipt does not cover.`,
    heading: ` (+${others.length} other${plural} in its transaction)`,
  };
}

/**
 * A single attestation, one batch item, or (`wholeBatch`) every item of one batch that a
 * transaction recorded, whose verification is that of its first item: the root, its signature, the
 * batch account and the transaction are shared by all items. The transaction's other attestations
 * are named as such.
 */
export function describeReceipt(subject: LookupSubject, verification: LedgerVerification): ReceiptFacts {
  const { records, wholeBatch } = subject;
  const others = othersNote(subject.others);
  const first = records[0]!;
  const when = formatUtc(first.timestamp);
  const status = verification.status;
  if (wholeBatch) {
    return {
      status,
      heading: `Batch of ${records.length} action${records.length === 1 ? "" : "s"}${others.heading}`,
      title: `ABAS receipt: ${records.length} action${records.length === 1 ? "" : "s"} attested by agent ${shortKey(first.agent, 4)}`,
      description:
        `Agent ${first.agent} attested a batch of ${records.length} action${records.length === 1 ? "" : "s"} (${countByType(records)}) on ${when}, ` +
        `committed as Merkle root ${first.batch?.merkleRoot ?? ""}. ${statusSentence(verification, true)}${others.sentence}`,
      label: LABELS[status],
      rows: [
        { label: "Agent", value: first.agent, mono: true },
        { label: "Actions", value: countByType(records) },
        { label: "Merkle root", value: first.batch?.merkleRoot ?? "", mono: true },
        { label: "Recorded", value: when },
        { label: "Transaction", value: first.txSignature, mono: true },
      ],
    };
  }
  const hashLabel = first.privacy ? "Commitment (privacy mode)" : "Action hash";
  const item = first.batch === null ? "" : ` as item ${first.batch.index + 1} of a batch`;
  return {
    status,
    heading: `${first.actionType}${others.heading}`,
    title: `ABAS receipt: ${first.actionType} by agent ${shortKey(first.agent, 4)}`,
    description:
      `Agent ${first.agent} attested a ${first.actionType} action${item} on ${when}. ` +
      `${hashLabel} ${first.storedHash}. ${statusSentence(verification, first.batch !== null)}` +
      (first.privacy ? " The commitment opens only with the salt the receipt holder keeps." : "") +
      others.sentence,
    label: LABELS[status],
    rows: [
      { label: "Agent", value: first.agent, mono: true },
      { label: hashLabel, value: first.storedHash, mono: true },
      {
        label: "Recorded",
        value: `${when}${first.batch === null ? "" : ` · batch item ${first.batch.index + 1}`}`,
      },
      { label: "Transaction", value: first.txSignature, mono: true },
    ],
  };
}

export function describeUnknown(id: string): ReceiptFacts {
  const message = `No ABAS attestation is recorded under ${id} on this ledger (or it is too recent to be indexed yet).`;
  return {
    status: "not-found",
    heading: "No attestation found",
    title: "ABAS receipt not found",
    description: message,
    label: LABELS["not-found"],
    rows: [{ label: "Looked up", value: id, mono: true }],
    error: message,
  };
}
