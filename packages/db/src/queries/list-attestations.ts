/**
 * Newest-first pages of attestations with keyset pagination on (slot, seq): a page starts strictly
 * after the previous page's last row, so rows inserted meanwhile (newer slots) never shift a walk
 * into duplicates or gaps, and a deep page costs what the first one costs (no OFFSET).
 */
import type { ApiAttestationPage, ListAttestationsQuery } from "@abas/api-contract";
import { ABAS_API__INVALID_PARAMETER, AbasError } from "@abas/errors";
import type { Kysely } from "kysely";

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

export async function listAttestations(
  db: Kysely<Database>,
  options: ListAttestationsOptions = {},
): Promise<ApiAttestationPage> {
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new AbasError(ABAS_API__INVALID_PARAMETER, {
      parameter: "limit",
      reason: `must be an integer from 1 to ${MAX_PAGE_SIZE}`,
    });
  }
  // Decode before querying: a bad cursor is the caller's error, whatever the data.
  const after = options.cursor === undefined ? undefined : decodeCursor(options.cursor);

  let query = db.selectFrom("attestations").selectAll();
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
  const rows = await query
    .orderBy("slot", "desc")
    .orderBy("seq", "desc")
    .limit(limit + 1)
    .execute();

  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(toApiAttestation),
    pagination: {
      nextCursor: hasMore && last ? encodeCursor({ slot: Number(last.slot), seq: Number(last.seq) }) : null,
      hasMore,
    },
  };
}
