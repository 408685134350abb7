import type { NewAttestationRow } from "@abas/db";
import type { Address } from "@solana/kit";

import type { AccountSnapshot } from "../account-snapshot.js";
import type { IndexerDatabase } from "../indexer-database.js";
import type { Logger } from "../logger.js";
import type { ProgramTransaction } from "../transaction-decoder.js";

/** What every applier gets: the database transaction, the ledger transaction and its accounts. */
export type ApplyContext = Readonly<{
  db: IndexerDatabase;
  programId: Address;
  transaction: ProgramTransaction;
  snapshot: AccountSnapshot;
  /** Unix ms, for `indexed_at`. */
  indexedAt: number;
  logger: Logger;
  /**
   * `<snapshot slot>:<agent account>` of the agent states written in this database transaction:
   * the same state is not written again.
   */
  agentStatesWritten: Set<string>;
  /**
   * The chunk's new attestation rows, in ledger order, inserted together before the checkpoint
   * (`attestation-rows.ts`); nothing applied in the same chunk reads them back.
   */
  attestationRows: NewAttestationRow[];
}>;

/**
 * An account that a successful transaction wrote is missing from the snapshot. Our program never
 * closes accounts, so the RPC node is behind the one that listed the transaction: the poll fails
 * and is retried rather than indexing an incomplete picture.
 */
export class AccountNotYetVisibleError extends Error {
  override readonly name = "AccountNotYetVisibleError";
}

export function requireAccountData(context: ApplyContext, account: Address | undefined): Uint8Array {
  const data = account === undefined ? undefined : context.snapshot.dataOf(account);
  if (data === undefined) {
    throw new AccountNotYetVisibleError(
      `account ${account ?? "(missing from the instruction)"} of transaction ${context.transaction.signature} is not visible at slot ${context.snapshot.slot}`,
    );
  }
  return data;
}
