/** The service's database as the SDK's attestation index: which indexed attestations store a hash. */
import { listAttestations, type Database } from "@abas/db";
import { indexedAttestationRef, type AttestationIndex, type AttestationIndexQuery } from "@abas/sdk";
import type { Kysely } from "kysely";

export function databaseAttestationIndex(db: Kysely<Database>): AttestationIndex {
  return {
    async findAttestations({ storedHash, agent, limit, cursor }: AttestationIndexQuery) {
      const page = await listAttestations(db, {
        storedHash,
        limit,
        ...(agent === undefined ? {} : { agent }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return { entries: page.data.map(indexedAttestationRef), nextCursor: page.pagination.nextCursor };
    },
  };
}
