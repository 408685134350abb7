/**
 * The verification status of an indexed attestation, computed from the ledger by the SDK's
 * `verifyAttestationAt`: the index only says where to look. The SDK reads the account (for a batch
 * item, the batch and the leaves its transactions published), rebuilds the receipt the agent's
 * operator was given and runs `verifyReceipt`'s checks on it against the ledger; this module words
 * them for the pages.
 *
 * In privacy mode the ledger stores a salted commitment; opening it needs the action hash and the
 * salt, which only the receipt holder has. Without them that one check is shown as not checked, and
 * the rest still runs.
 */
import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";
import { ABAS_RUNTIME__RPC_REQUEST_FAILED, isAbasError } from "@abas/errors";
import { verifyAttestationAt, type ReceiptCheckName, type VerifiedAttestation } from "@abas/sdk";

export interface LedgerContext {
  readonly rpcUrl: string;
  readonly programId: string;
  /** How long the ledger may take to answer a verification. */
  readonly timeoutMs?: number;
}

export type CheckOutcome = "passed" | "failed" | "not-checked";

export interface DisplayedCheck {
  readonly name: ReceiptCheckName;
  readonly label: string;
  readonly outcome: CheckOutcome;
  readonly detail?: string;
}

export interface LedgerVerification {
  /** verified: every check that could run passed; failed: one did not; unavailable: no answer. */
  readonly status: "verified" | "failed" | "unavailable";
  readonly checks: readonly DisplayedCheck[];
  /** Why the ledger could not be asked (status "unavailable"). */
  readonly problem?: string;
  /** Where a batch item's proof came from. */
  readonly proofSource?: "receipt" | "ledger-leaves";
  /** Unix ms of the check. */
  readonly checkedAt: number;
}

export const DEFAULT_LEDGER_TIMEOUT_MS = 10_000;

const CHECK_LABELS: Record<ReceiptCheckName, string> = {
  format: "The receipt is well formed",
  storedHash: "The stored hash is the action hash (or, in privacy mode, its salted commitment)",
  agentSignature: "The agent's Ed25519 signature verifies over the exact message the program checked",
  merkleProof: "The Merkle proof links this item to the signed root",
  address: "The account address is the program's address for this agent and hash",
  program: "The receipt is of the ABAS program this service follows",
  account: "The ledger holds the account there, owned by the ABAS program",
  accountFields: "The account's fields match: hash, type, mode, agent, operator, signature, slot, time",
  batchLeaf: "The batch is complete: the leaves it published on the ledger reproduce the signed root",
  transaction: "The transaction exists, succeeded and wrote the account in the recorded slot",
};

const CHECK_ORDER: readonly ReceiptCheckName[] = [
  "program",
  "account",
  "address",
  "accountFields",
  "agentSignature",
  "merkleProof",
  "batchLeaf",
  "storedHash",
  "transaction",
  "format",
];

const PRIVACY_NOT_OPENED =
  "privacy mode: opening the commitment needs the action hash and the salt, which only the receipt holder has (use the verify page)";

function displayChecks(attestation: VerifiedAttestation): DisplayedCheck[] {
  return CHECK_ORDER.flatMap((name): DisplayedCheck[] => {
    const check = attestation.checks[name];
    if (name === "storedHash" && !attestation.commitmentOpened && attestation.privacyMode) {
      return [{ name, label: CHECK_LABELS[name], outcome: "not-checked", detail: PRIVACY_NOT_OPENED }];
    }
    if (check === undefined) return [];
    return [
      {
        name,
        label: CHECK_LABELS[name],
        outcome: check.ok ? "passed" : "failed",
        ...(check.reason === undefined ? {} : { detail: check.reason }),
      },
    ];
  });
}

/** The SDK's verification of one attestation, worded for the pages. */
export function displayVerification(attestation: VerifiedAttestation, checkedAt: number): LedgerVerification {
  const checks = displayChecks(attestation);
  const proofSource = attestation.batch?.proofSource;
  return {
    status: checks.every((check) => check.outcome !== "failed") ? "verified" : "failed",
    checks,
    ...(proofSource === "query" ? { proofSource: "receipt" } : {}),
    ...(proofSource === "ledger-leaves" ? { proofSource: "ledger-leaves" } : {}),
    checkedAt,
  };
}

/** A failure of the ledger itself (no answer) rather than of the attestation. */
export function isLedgerUnavailable(error: unknown): boolean {
  return !isAbasError(error) || isAbasError(error, ABAS_RUNTIME__RPC_REQUEST_FAILED);
}

/** Never throws: a ledger that does not answer is the status "unavailable". */
export async function verifyIndexedAttestation(
  record: IndexedAttestation,
  context: LedgerContext,
): Promise<LedgerVerification> {
  const checkedAt = Date.now();
  try {
    const attestation = await verifyAttestationAt(
      {
        address: record.batch?.address ?? record.id,
        ...(record.batch === null ? {} : { batchIndex: record.batch.index }),
        txSignature: record.txSignature,
      },
      {
        rpcUrl: context.rpcUrl,
        programId: context.programId,
        abortSignal: AbortSignal.timeout(context.timeoutMs ?? DEFAULT_LEDGER_TIMEOUT_MS),
      },
    );
    return displayVerification(attestation, checkedAt);
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    if (isLedgerUnavailable(error)) return { status: "unavailable", checks: [], problem, checkedAt };
    // The ledger answered, and what the index points at is not there (or not what it says).
    return {
      status: "failed",
      checks: [{ name: "account", label: CHECK_LABELS.account, outcome: "failed", detail: problem }],
      checkedAt,
    };
  }
}
