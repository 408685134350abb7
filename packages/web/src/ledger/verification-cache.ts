/**
 * Recent verifications by attestation id, so a share link unfurled by many clients at once asks
 * the ledger once. A verified attestation stays verified (its account and transaction are final),
 * so that answer is kept longer than a failure, which may be a lagging RPC node.
 */
import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";

import { verifyIndexedAttestation, type LedgerContext, type LedgerVerification } from "./verify-record.js";

const VERIFIED_TTL_MS = 5 * 60 * 1000;
const OTHER_TTL_MS = 5 * 1000;
const MAX_ENTRIES = 1_000;

export class VerificationCache {
  readonly #entries = new Map<string, { expiresAt: number; verification: Promise<LedgerVerification> }>();

  constructor(private readonly context: LedgerContext) {}

  verify(record: IndexedAttestation): Promise<LedgerVerification> {
    const now = Date.now();
    const cached = this.#entries.get(record.id);
    if (cached !== undefined && cached.expiresAt > now) return cached.verification;
    const verification = verifyIndexedAttestation(record, this.context);
    const entry = { expiresAt: now + OTHER_TTL_MS, verification };
    void verification.then((result) => {
      if (result.status === "verified") entry.expiresAt = Date.now() + VERIFIED_TTL_MS;
    });
    this.#entries.delete(record.id);
    this.#entries.set(record.id, entry);
    if (this.#entries.size > MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!);
    return verification;
  }
}
