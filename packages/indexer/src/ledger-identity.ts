/**
 * Guards against indexing two different ledgers into one database: a local ledger started again
 * with `--reset` keeps the program id but not its history, and its new transactions would be
 * mixed with the old rows. The genesis hash of the ledger a database was built from is kept in
 * `indexer_state`; a different one stops indexing, with the remedy in the error, and is recorded
 * as a divergence for /health to name.
 */
import type { Rpc, SolanaRpcApi } from "@solana/kit";

import { writeIndexerState } from "./checkpoint-store.js";
import type { IndexerDatabase } from "./indexer-database.js";
import { writeAsLeader, type LeaderLease } from "./leadership/leader-lease.js";
import { recordDivergence } from "./ledger-agreement.js";
import type { Logger } from "./logger.js";
import { rpcRequestOptions } from "./rpc-request-options.js";

/** The `indexer_state` key of the genesis hash of the indexed ledger. */
export const LEDGER_GENESIS_HASH_KEY = "ledger_genesis_hash";

export class LedgerMismatchError extends Error {
  override readonly name = "LedgerMismatchError";
}

export async function checkLedgerIdentity(
  rpc: Rpc<SolanaRpcApi>,
  db: IndexerDatabase,
  lease: Pick<LeaderLease, "fence">,
  logger: Logger,
): Promise<void> {
  const genesisHash = await rpc.getGenesisHash().send(rpcRequestOptions());
  const stored = await db
    .selectFrom("indexer_state")
    .select("value")
    .where("key", "=", LEDGER_GENESIS_HASH_KEY)
    .executeTakeFirst();
  if (stored === undefined) {
    await writeAsLeader(db, lease, (trx) =>
      writeIndexerState(trx, { [LEDGER_GENESIS_HASH_KEY]: genesisHash }),
    );
  } else if (stored.value !== genesisHash) {
    await recordDivergence(
      db,
      lease,
      `the ledger is another one (genesis ${genesisHash}) than the index was built from (genesis ${stored.value})`,
      logger,
    );
    throw new LedgerMismatchError(
      `the ledger (genesis ${genesisHash}) is not the one this database was built from (genesis ${stored.value}); ` +
        "rebuild the database from it with `abas-indexer reindex`",
    );
  }
}
