/**
 * One attestation by its id, or the attestations one transaction recorded. A transaction
 * signature is 64 bytes (86 to 88 base58 characters) and an id is an address (at most 44) or
 * `<address>:<index>`, so the length alone tells which was given.
 */
import type { ApiAttestationLookup } from "@abas/api-contract";
import type { Kysely } from "kysely";

import type { Database } from "../schema.js";
import { toApiAttestation } from "./api-attestation.js";

const MAX_ADDRESS_LENGTH = 44;

export function isTransactionSignature(idOrSignature: string): boolean {
  return !idOrSignature.includes(":") && idOrSignature.length > MAX_ADDRESS_LENGTH;
}

/** Undefined when nothing matches. */
export async function getAttestation(
  db: Kysely<Database>,
  idOrSignature: string,
): Promise<ApiAttestationLookup | undefined> {
  if (isTransactionSignature(idOrSignature)) {
    const rows = await db
      .selectFrom("attestations")
      .selectAll()
      .where("tx_signature", "=", idOrSignature)
      .orderBy("batch_index", "asc")
      .orderBy("seq", "asc")
      .execute();
    return rows.length === 0 ? undefined : { matchedBy: "txSignature", data: rows.map(toApiAttestation) };
  }
  const row = await db
    .selectFrom("attestations")
    .selectAll()
    .where("id", "=", idOrSignature)
    .executeTakeFirst();
  return row === undefined ? undefined : { matchedBy: "id", data: [toApiAttestation(row)] };
}
