/**
 * Newest-first pages of attestations with keyset pagination on (slot, seq): a page starts strictly
 * after the previous page's last row, so rows inserted meanwhile (newer slots) never shift a walk
 * into duplicates or gaps, and a deep page costs what the first one costs (no OFFSET).
 */
import type { ApiAttestationPage, ListAttestationsQuery } from "@abas/api-contract";
import { ABAS_API__INVALID_PARAMETER, AbasError } from "@abas/errors";
import type { Kysely } from "kysely";

import { readRows, type Dialect } from "../create-database.js";
import type { AttestationRow, Database } from "../schema.js";
import { toApiAttestation } from "./api-attestation.js";
import { decodeCursor, encodeCursor } from "./cursor.js";

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The API's filters, with `since` (inclusive) and `until` (exclusive) as unix seconds. */
export type ListAttestationsOptions = Partial<Omit<ListAttestationsQuery, "since" | "until">> & {
  readonly since?: number;
  readonly until?: number;
};

/**
 * The filtered, newest-first keyset query of a page (one row more than `limit`) as SQL text with
 * its parameters: one text per combination of filters, so each is prepared once.
 */
function pageQuery(columns: string, options: ListAttestationsOptions) {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AbasError(ABAS_API__INVALID_PARAMETER, {
      parameter: "limit",
      reason: `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  // Decode before querying: a bad cursor is the caller's error, whatever the data.
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);

  const parameters: unknown[] = [];
  const parameter = (value: unknown): string => {
    parameters.push(value);
    return "?";
  };
  const conditions: string[] = [];
  const equal = (column: string, value: unknown): void => {
    if (value !== undefined) conditions.push(`${column} = ${parameter(value)}`);
  };
  equal("agent", options.agent);
  equal("operator", options.operator);
  equal("action_type", options.actionType);
  equal("privacy", options.privacy === undefined ? undefined : options.privacy ? 1 : 0);
  if (options.since !== undefined) conditions.push(`timestamp >= ${parameter(options.since)}`);
  if (options.until !== undefined) conditions.push(`timestamp < ${parameter(options.until)}`);
  equal("batch_address", options.batch);
  equal("stored_hash", options.storedHash);
  if (after !== undefined) {
    // `slot <= s` gives the index a range; the OR then drops the rows of slot s already served.
    conditions.push(
      `slot <= ${parameter(after.slot)}`,
      `(slot < ${parameter(after.slot)} or seq < ${parameter(after.seq)})`,
    );
  }
  const where = conditions.length === 0 ? "" : ` where ${conditions.join(" and ")}`;
  // One row more than asked tells whether another page exists without a count. The limit, a
  // checked integer, is written in the text: SQLite plans a bound LIMIT less well.
  const text = `select ${columns} from attestations${where} order by slot desc, seq desc limit ${limit + 1}`;
  return { limit, text, parameters };
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
  const { limit, text, parameters } = pageQuery("*", options);
  const rows = await readRows<AttestationRow>(db, text, parameters);
  return { data: rows.slice(0, limit).map(toApiAttestation), pagination: paginationOf(rows, limit) };
}

/**
 * Each attestation as the contract's JSON text, built by the database: the same bytes
 * JSON.stringify(toApiAttestation(row)) gives, without 16 columns becoming JavaScript values first.
 */
const ATTESTATION_JSON: Record<Dialect, string> = {
  sqlite: `json_object(
    'id', id, 'kind', kind, 'agent', agent, 'operator', operator, 'actionType', action_type,
    'privacy', json(case when privacy = 1 then 'true' else 'false' end),
    'storedHash', stored_hash, 'agentSignature', agent_signature, 'txSignature', tx_signature,
    'slot', slot, 'timestamp', timestamp,
    'batch', json(case when batch_address is not null and batch_index is not null and merkle_root is not null
      then json_object('address', batch_address, 'index', batch_index, 'merkleRoot', merkle_root) else 'null' end))`,
  // row_to_json writes compact JSON in column order (json_build_object would add spaces).
  postgres: `(select row_to_json(item) from (select id, kind, agent, operator,
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
  const { limit, text, parameters } = pageQuery(`slot, seq, ${ATTESTATION_JSON[dialect]} as json`, options);
  const rows = await readRows<{ slot: number; seq: number; json: string }>(db, text, parameters);
  const data = rows.slice(0, limit).map((row) => row.json);
  return `{"data":[${data.join(",")}],"pagination":${JSON.stringify(paginationOf(rows, limit))}}`;
}
