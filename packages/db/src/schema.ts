/**
 * The database, table by table: the one description of what the indexer writes and the API reads.
 * Integers that can exceed 2^31 are `bigint` columns read back as JS numbers (safe up to 2^53:
 * slots, unix seconds and counters stay far below). Booleans are stored as 0/1 integers so both
 * dialects return the same values. Addresses and signatures are base58 text, hashes lowercase hex.
 */
import type { Generated, Insertable, Selectable, Updateable } from "kysely";

/** One registered agent, as its on-chain Agent account last stood, plus ledger facts about it. */
export interface AgentsTable {
  /** The agent's public key. */
  agent: string;
  /** The Agent account (PDA ["agent", agent]). */
  address: string;
  operator: string;
  status: "active" | "suspended" | "revoked";
  /** Bit mask of allowed action types (bit t = type t). */
  allowed_action_types: number;
  registered_at: number;
  registered_slot: number;
  updated_at: number;
  attestation_count: number;
  batch_count: number;
  batch_item_count: number;
  last_attested_at: number | null;
  /** Attempts by this agent's operator that the program refused for policy or status reasons. */
  policy_violation_count: number;
  /** Slot of the ledger state these columns reflect; older states never overwrite newer ones. */
  state_slot: number;
}

/** One attested action: a single attestation, or one item of a verified batch. */
export interface AttestationsTable {
  /** Insertion order; with `slot` it makes the stable keyset for "newest first" pagination. */
  seq: Generated<number>;
  /** Public id: the attestation account address, or `<batch address>:<index>` for a batch item. */
  id: string;
  kind: "single" | "batch";
  agent: string;
  operator: string;
  action_type: "Transaction" | "ToolCall" | "Decision" | "ModelInvocation";
  /** 1 when `stored_hash` is a salted commitment (privacy mode). */
  privacy: number;
  /** The hash the ledger stores: the action hash, or the commitment in privacy mode. */
  stored_hash: string;
  /** The agent's Ed25519 signature (base58): of the attest message, or of the batch root. */
  agent_signature: string;
  /** The transaction that recorded it (for a batch item: the batch commit transaction). */
  tx_signature: string;
  slot: number;
  /** The ledger's unix timestamp when it was recorded. */
  timestamp: number;
  batch_address: string | null;
  batch_index: number | null;
  merkle_root: string | null;
  /** Unix milliseconds when the indexer wrote the row. */
  indexed_at: number;
}

/** One batch commitment and how far its leaves are published. */
export interface BatchesTable {
  address: string;
  agent: string;
  operator: string;
  merkle_root: string;
  item_count: number;
  action_types: number;
  agent_signature: string;
  tx_signature: string;
  slot: number;
  timestamp: number;
  leaves_published: number;
  /** 1 once every leaf is published (the program then has checked that they reproduce the root). */
  complete: number;
  /** 1 once the batch's items are in `attestations`. */
  items_indexed: number;
}

/**
 * A leaf of a batch that is not complete yet, as its `publish_batch_leaves` chunk carried it; the
 * rows of a batch go once its items are in `attestations`.
 */
export interface BatchLeavesTable {
  batch_address: string;
  leaf_index: number;
  /** 0..=3, as in the leaf data. */
  action_type: number;
  privacy: number;
  stored_hash: string;
}

/** Every ABAS program transaction the indexer has applied, so each is applied exactly once. */
export interface ProcessedTransactionsTable {
  signature: string;
  slot: number;
  /** 1 when the transaction failed on the ledger. */
  failed: number;
  processed_at: number;
  /** The instance id of the indexer (the leader) that applied it (migration 2026-11-24T0000-applied-by). */
  applied_by: string;
}

/** The indexer's checkpoint and status, as key/value pairs (see IndexerStateKey). */
export interface IndexerStateTable {
  key: string;
  value: string;
}

/** The indexer's leader lease: one row (id 1). See migration 2026-11-23T0100-indexer-leader-lease. */
export interface IndexerLeaderTable {
  id: number;
  /** The leading indexer's instance id; empty when nobody leads. */
  holder: string;
  /** Its host and process id: a lease whose holder process on this host is gone is free at once. */
  host: string;
  pid: number;
  /** Raised at every takeover; the leader's writes check it (fencing). */
  epoch: number;
  /** Unix ms, by the database's clock, after which another indexer may take the lease. */
  expires_at: number;
}

export interface ApiKeysTable {
  id: string;
  name: string;
  /** The first characters of the key, shown in listings so a user can tell keys apart. */
  prefix: string;
  /** SHA-256 (hex) of the whole key; the key itself is never stored. */
  key_hash: string;
  /** Who created it: an operator's wallet address, or "cli". */
  owner: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
}

/**
 * A Sign-In With Solana nonce the web app issued (migration 2026-11-21T0200-web-sign-in): in the
 * database so that a nonce issued by one replica is redeemed at another, exactly once.
 */
export interface WebSignInNoncesTable {
  nonce: string;
  /** SHA-256 (hex) of the sign-in cookie of the browser the nonce was issued to. */
  binding_hash: string;
  /** Unix ms. */
  issued_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A signed-in web session (migration 2026-11-21T0200-web-sign-in). */
export interface WebSessionsTable {
  /** SHA-256 (hex) of the session cookie's token; the token itself is never stored. */
  token_hash: string;
  /** The wallet address that signed in. */
  address: string;
  /** The synchronizer token every state-changing request must echo in X-CSRF-Token. */
  csrf_token: string;
  /** Unix ms. */
  created_at: number;
  expires_at: number;
}

/** A key the web app signs with, shared by every replica (migration 2026-11-23T0200-web-secrets). */
export interface WebSecretsTable {
  name: string;
  /** Hex of 32 random bytes. */
  value: string;
}

export interface Database {
  agents: AgentsTable;
  attestations: AttestationsTable;
  batches: BatchesTable;
  batch_leaves: BatchLeavesTable;
  processed_transactions: ProcessedTransactionsTable;
  indexer_state: IndexerStateTable;
  indexer_leader: IndexerLeaderTable;
  api_keys: ApiKeysTable;
  web_sign_in_nonces: WebSignInNoncesTable;
  web_sessions: WebSessionsTable;
  web_secrets: WebSecretsTable;
}

export type AgentRow = Selectable<AgentsTable>;
export type NewAgentRow = Insertable<AgentsTable>;
export type AgentRowUpdate = Updateable<AgentsTable>;
export type AttestationRow = Selectable<AttestationsTable>;
export type NewAttestationRow = Insertable<AttestationsTable>;
export type BatchRow = Selectable<BatchesTable>;
export type NewBatchRow = Insertable<BatchesTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;

/** The keys of `indexer_state`. The indexer writes them; the API's health route reads them. */
export const IndexerStateKey = {
  /** The newest program transaction signature applied (the `until` of the next poll). */
  CursorSignature: "cursor_signature",
  /** Its slot. */
  CursorSlot: "cursor_slot",
  /** The ledger slot up to which everything has been applied (the slot of the last full poll). */
  IndexedSlot: "indexed_slot",
  /** Unix ms when the last new transaction was applied. */
  LastIngestAt: "last_ingest_at",
  /** Unix ms of the last successful poll, new transactions or not. */
  HeartbeatAt: "heartbeat_at",
  /** The last error the indexer met (empty when the last poll succeeded), and when. */
  LastError: "last_error",
  LastErrorAt: "last_error_at",
  /** The id of the indexer instance that leads (holds the leader lease). */
  Leader: "leader",
  /**
   * Why the index no longer matches the ledger (its checkpoint transaction is gone from the ledger,
   * or the ledger is another one); empty or absent when it matches. Only a reindex clears it.
   */
  LedgerDivergence: "ledger_divergence",
} as const;
export type IndexerStateKey = (typeof IndexerStateKey)[keyof typeof IndexerStateKey];
