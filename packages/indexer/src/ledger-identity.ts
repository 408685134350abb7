/**
 * Guards against indexing two different ledgers into one database: a local ledger started again
 * with `--reset` keeps the program id but not its history, and its new transactions would be
 * mixed with the old rows. The genesis hash of the ledger a database was built from is kept in
 * `indexer_state`; a different one stops indexing, with the remedy in the error.
 */
import type { Rpc, SolanaRpcApi } from "@solana/kit";

import { writeIndexerState } from "./checkpoint-store.js";
import type { IndexerDatabase } from "./indexer-database.js";
import { rpcRequestOptions } from "./rpc-request-options.js";

/** The `indexer_state` key of the genesis hash of the indexed ledger. */
export const LEDGER_GENESIS_HASH_KEY = "ledger_genesis_hash";

export class LedgerMismatchError extends Error {
  override readonly name = "LedgerMismatchError";
}

export async function checkLedgerIdentity(rpc: Rpc<SolanaRpcApi>, db: IndexerDatabase): Promise<void> {
  const genesisHash = await rpc.getGenesisHash().send(rpcRequestOptions());
  const stored = await db
    .selectFrom("indexer_state")
    .select("value")
    .where("key", "=", LEDGER_GENESIS_HASH_KEY)
    .executeTakeFirst();
  if (stored === undefined) {
    await writeIndexerState(db, { [LEDGER_GENESIS_HASH_KEY]: genesisHash });
  } else if (stored.value !== genesisHash) {
    throw new LedgerMismatchError(
      `the ledger (genesis ${genesisHash}) is not the one this database was built from (genesis ${stored.value}); ` +
        "rebuild the database from it with `abas-indexer reindex`",
    );
  }
}
