export * from "./account-snapshot.js";
export * from "./apply-ledger-transaction.js";
export * from "./batch-item-verification.js";
export * from "./checkpoint-store.js";
export * from "./config.js";
export * from "./describe-error.js";
export * from "./indexer.js";
export * from "./json-rpc-batch.js";
export type { IndexerDatabase } from "./indexer-database.js";
export {
  LeadershipLostError,
  writeAsLeader,
  type LeaderElection,
  type LeaderLease,
} from "./leadership/leader-lease.js";
export { createLeaderElection } from "./leadership/leader-election.js";
export { DEFAULT_LEASE_MS } from "./leadership/leader-lease-row.js";
export * from "./ledger-agreement.js";
export * from "./ledger-identity.js";
export * from "./logger.js";
export * from "./poller.js";
export * from "./reindex.js";
export { RPC_REQUEST_TIMEOUT_MS } from "./rpc-request-options.js";
export * from "./signature-scanner.js";
export * from "./transaction-decoder.js";
export * from "./transaction-fetcher.js";
