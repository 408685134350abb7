/**
 * Newest-first pages of attestations with keyset pagination on (slot, seq): a page starts strictly
 * after the previous page's last row, so rows inserted meanwhile (newer slots) never shift a walk
 * into duplicates or gaps, and a deep page costs what the first one costs (no OFFSET).
 */
import type { ApiAttestationPage, ListAttestationsQuery } from "@abas/api-contract";
import { ABAS_API__INVALID_PARAMETER, AbasError } from "@abas/errors";
import { sql, type Kysely, type RawBuilder } from "kysely";

import type { Dialect } from "../create-database.js";
import type { Database } from "../schema.js";
import { toApiAttestation } from "./api-attestation.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The API's filters, with `since` (inclusive) and `until` (exclusive) as unix seconds. */
export type ListAttestationsOptions = Partial<Omit<ListAttestationsQuery, "since" | "until">> & {
  readonly since?: number;
  readonly until?: number;
};

/** The filtered, newest-first keyset query of a page (one row more than `limit`), no columns yet. */
function pageQuery(db: Kysely<Database>, options: ListAttestationsOptions) {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AbasError(ABAS_API__INVALID_PARAMETER, {
      parameter: "limit",
      reason: `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  // Decode before querying: a bad cursor is the caller's error, whatever the data.
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);

  let query = db.selectFrom("attestations");
  if (options.agent !== undefined) query = query.where("agent", "=", options.agent);
  if (options.operator !== undefined) query = query.where("operator", "=", options.operator);
  if (options.actionType !== undefined) query = query.where("action_type", "=", options.actionType);
  if (options.privacy !== undefined) query = query.where("privacy", "=", options.privacy ? 1 : 0);
  if (options.since !== undefined) query = query.where("timestamp", ">=", options.since);
  if (options.until !== undefined) query = query.where("timestamp", "<", options.until);
  if (options.batch !== undefined) query = query.where("batch_address", "=", options.batch);
  if (options.storedHash !== undefined) query = query.where("stored_hash", "=", options.storedHash);
  if (after !== undefined) {
    // `slot <= s` gives the index a range; the OR then drops the rows of slot s already served.
    query = query
      .where("slot", "<=", after.slot)
      .where((eb) => eb.or([eb("slot", "<", after.slot), eb("seq", "<", after.seq)]));
  }
  // One row more than asked tells whether another page exists without a count.
  return {
    limit,
    query: query
      .orderBy("slot", "desc")
      .orderBy("seq", "desc")
      .limit(limit + 1),
  };
}

function paginationOf(
  rows: readonly { slot: number | string; seq: number | string }[],
  limit: number,
): ApiAttestationPage["pagination"] {
  const hasMore = rows.length > limit;
  const last = rows[Math.min(rows.length, limit) - 1];
  return {
    nextCursor: hasMore && last ? encodeCursor({ slot: Number(last.slot), seq: Number(last.seq) }) : null,
    hasMore,
  };
}

export async function listAttestations(
  db: Kysely<Database>,
  options: ListAttestationsOptions = {},
): Promise<ApiAttestationPage> {
  const { limit, query } = pageQuery(db, options);
  const rows = await query.selectAll().execute();
  return { data: rows.slice(0, limit).map(toApiAttestation), pagination: paginationOf(rows, limit) };
}

/**
 * Each attestation as the contract's JSON text, built by the database: the same bytes
 * JSON.stringify(toApiAttestation(row)) gives, without 16 columns becoming JavaScript values first.
 */
const ATTESTATION_JSON: Record<Dialect, RawBuilder<string>> = {
  sqlite: sql<string>`json_object(
    'id', id, 'kind', kind, 'agent', agent, 'operator', operator, 'actionType', action_type,
    'privacy', json(case when privacy = 1 then 'true' else 'false' end),
    'storedHash', stored_hash, 'agentSignature', agent_signature, 'txSignature', tx_signature,
    'slot', slot, 'timestamp', timestamp,
    'batch', json(case when batch_address is not null and batch_index is not null and merkle_root is not null
      then json_object('address', batch_address, 'index', batch_index, 'merkleRoot', merkle_root) else 'null' end))`,
  // row_to_json writes compact JSON in column order (json_build_object would add spaces).
  postgres: sql<string>`(select row_to_json(item) from (select id, kind, agent, operator,
    action_type as "actionType", privacy = 1 as privacy, stored_hash as "storedHash",
    agent_signature as "agentSignature", tx_signature as "txSignature", slot, timestamp,
    case when batch_address is not null and batch_index is not null and merkle_root is not null
      then (select row_to_json(batch) from (select batch_address as address, batch_index as index,
        merkle_root as "merkleRoot") batch) end as batch) item)::text`,
};

/** The page as the contract's JSON text (what JSON.stringify(await listAttestations(...)) gives). */
export async function listAttestationsJson(
  db: Kysely<Database>,
  dialect: Dialect,
  options: ListAttestationsOptions = {},
): Promise<string> {
  const { limit, query } = pageQuery(db, options);
  const rows = await query.select(["slot", "seq", ATTESTATION_JSON[dialect].as("json")]).execute();
  const data = rows.slice(0, limit).map((row) => row.json);
  return `{"data":[${data.join(",")}],"pagination":${JSON.stringify(paginationOf(rows, limit))}}`;
}
