/**
 * Newest-first pages of attestations with keyset pagination on (slot, seq): a page starts strictly
 * after the previous page's last row, so rows inserted meanwhile (newer slots) never shift a walk
 * into duplicates or gaps, and a deep page costs what the first one costs (no OFFSET).
 */
import type { ApiAttestationPage, ListAttestationsQuery } from "@abas/api-contract";
import { ABAS_API__CURSOR_EXPIRED, ABAS_API__INVALID_PARAMETER, AbasError } from "@abas/errors";
import type { Kysely } from "kysely";

import { dialectOf, readRows, type Dialect } from "../create-database.js";
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
 * The most attestations one page examines when its filters are not all served by the index it walks
 * (two equality filters together, or `privacy`, `since` or `until`): the page then holds the matches
 * among them, possibly fewer than `limit` or none, and its cursor continues after the last one
 * examined. Every page thus costs at most this many rows, whatever the filters.
 */
export const PAGE_SCAN_LIMIT = 5_000;

/** The equality filters an index walks newest first (or holds few rows for), by preference. */
const ACCESS_PATHS = [
  { filter: "storedHash", column: "stored_hash", index: "attestations_stored_hash" },
  { filter: "batch", column: "batch_address", index: "attestations_batch" },
  { filter: "agent", column: "agent", index: "attestations_agent" },
  { filter: "operator", column: "operator", index: "attestations_operator" },
  { filter: "actionType", column: "action_type", index: "attestations_action_type" },
] as const;

type Key = { readonly slot: number; readonly seq: number };

/**
 * Whether the row a cursor names (or an older one) is still indexed. Indexing again (`abas
 * reindex`) writes every row anew with a higher `seq` than any before, so a cursor issued earlier
 * would continue after rows of its slot that all sort before it: its walk would skip them. (A
 * scalar subquery, evaluated once; SQLite would turn an `exists` into a join and sort the page.)
 */
const CURSOR_ROW_INDEXED = "(select min(seq) from attestations) <= ?";

/** SQL conditions joined by `and`, with their parameters in order (`?` placeholders). */
class Conditions {
  readonly texts: string[] = [];
  readonly parameters: unknown[] = [];

  add(text: string, ...parameters: unknown[]): void {
    this.texts.push(text);
    this.parameters.push(...parameters);
  }

  where(...more: Conditions[]): { text: string; parameters: unknown[] } {
    const all = [this, ...more];
    const texts = all.flatMap((conditions) => conditions.texts);
    return {
      text: texts.length === 0 ? "" : ` where ${texts.join(" and ")}`,
      parameters: all.flatMap((conditions) => conditions.parameters),
    };
  }
}

/**
 * A page's plan: the index it walks (named to SQLite, so that its cost is what this module says),
 * the conditions that index serves (the access path's filter and the cursor), and the others.
 */
export function pagePlan(dialect: Dialect, options: ListAttestationsOptions) {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AbasError(ABAS_API__INVALID_PARAMETER, {
      parameter: "limit",
      reason: `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  // Decode before querying: a bad cursor is the caller's error, whatever the data.
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);

  const access = ACCESS_PATHS.find((path) => options[path.filter] !== undefined);
  const walked = new Conditions();
  if (access !== undefined) walked.add(`${access.column} = ?`, options[access.filter]);
  if (after !== undefined) {
    // `slot <= s` gives the index a range; the OR then drops the rows of slot s already served.
    walked.add("slot <= ?", after.slot);
    walked.add("(slot < ? or seq < ?)", after.slot, after.seq);
  }
  // Checked by the page's statement itself (once: the subquery does not depend on the row).
  const cursorRowIndexed = new Conditions();
  if (after !== undefined) cursorRowIndexed.add(CURSOR_ROW_INDEXED, after.seq);
  const others = new Conditions();
  for (const path of ACCESS_PATHS) {
    if (path !== access && options[path.filter] !== undefined)
      others.add(`${path.column} = ?`, options[path.filter]);
  }
  if (options.privacy !== undefined) others.add("privacy = ?", options.privacy ? 1 : 0);
  if (options.since !== undefined) others.add("timestamp >= ?", options.since);
  if (options.until !== undefined) others.add("timestamp < ?", options.until);

  const from = `from attestations${dialect === "sqlite" ? ` indexed by ${access?.index ?? "attestations_order"}` : ""}`;
  const order = "order by slot desc, seq desc";
  const walkedOnly = walked.where();
  return {
    limit,
    after,
    /** The key of the last row the page may examine: asked only when some filter is not walked. */
    scanEnd:
      others.texts.length === 0
        ? undefined
        : {
            text: `select slot, seq ${from}${walkedOnly.text} ${order} limit 1 offset ${PAGE_SCAN_LIMIT - 1}`,
            parameters: walkedOnly.parameters,
          },
    /**
     * The page (one row more than `limit`, which tells whether another page exists without a
     * count), within `scanEnd` when there is one. One text per combination of filters, so each is
     * prepared once; the limit, a checked integer, is written in the text: SQLite plans a bound
     * LIMIT less well.
     */
    page(columns: string, scanEnd: Key | undefined) {
      const bound = new Conditions();
      if (scanEnd !== undefined) {
        bound.add("slot >= ?", scanEnd.slot);
        bound.add("(slot > ? or seq >= ?)", scanEnd.slot, scanEnd.seq);
      }
      const { text, parameters } = walked.where(bound, others, cursorRowIndexed);
      return { text: `select ${columns} ${from}${text} ${order} limit ${limit + 1}`, parameters };
    },
  };
}

/** A page's rows and pagination; `columns` must include `slot` and `seq`. */
async function readPage<Row extends { slot: number | string; seq: number | string }>(
  db: Kysely<Database>,
  columns: string,
  options: ListAttestationsOptions,
): Promise<{ rows: Row[]; pagination: ApiAttestationPage["pagination"] }> {
  const plan = pagePlan(dialectOf(db), options);
  const scanEnd =
    plan.scanEnd === undefined
      ? undefined
      : (await readRows<Key>(db, plan.scanEnd.text, plan.scanEnd.parameters))[0];
  const { text, parameters } = plan.page(columns, scanEnd);
  const rows = await readRows<Row>(db, text, parameters);
  if (rows.length === 0 && plan.after !== undefined) await assertCursorRowIndexed(db, plan.after);
  const full = rows.length > plan.limit;
  // A full page continues after its last row; a page cut short by the scan limit, after the last
  // row it examined.
  const last = full ? rows[plan.limit - 1] : scanEnd;
  return {
    rows: rows.slice(0, plan.limit),
    pagination: {
      nextCursor:
        last === undefined ? null : encodeCursor({ slot: Number(last.slot), seq: Number(last.seq) }),
      hasMore: last !== undefined,
    },
  };
}

/** An empty page after a cursor: the end of the walk, or the cursor outlived its row. */
async function assertCursorRowIndexed(db: Kysely<Database>, after: Key): Promise<void> {
  const [indexed] = await readRows<{ indexed: unknown }>(db, `select ${CURSOR_ROW_INDEXED} as indexed`, [
    after.seq,
  ]);
  if (!indexed?.indexed) throw new AbasError(ABAS_API__CURSOR_EXPIRED, undefined);
}

export async function listAttestations(
  db: Kysely<Database>,
  options: ListAttestationsOptions = {},
): Promise<ApiAttestationPage> {
  const { rows, pagination } = await readPage<AttestationRow>(db, "*", options);
  return { data: rows.map(toApiAttestation), pagination };
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
  options: ListAttestationsOptions = {},
): Promise<string> {
  const { rows, pagination } = await readPage<{ slot: number; seq: number; json: string }>(
    db,
    `slot, seq, ${ATTESTATION_JSON[dialectOf(db)]} as json`,
    options,
  );
  return `{"data":[${rows.map((row) => row.json).join(",")}],"pagination":${JSON.stringify(pagination)}}`;
}
