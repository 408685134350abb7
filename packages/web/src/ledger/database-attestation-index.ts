/** The service's database as the SDK's attestation index: which indexed attestations store a hash. */
import { listAttestations, type Database } from "@abas/db";
import type { AttestationIndex, AttestationIndexQuery, IndexedAttestationRef } from "@abas/sdk";
import type { Kysely } from "kysely";

export function databaseAttestationIndex(db: Kysely<Database>): AttestationIndex {
  return {
    async findAttestations({ storedHash, agent, limit }: AttestationIndexQuery) {
      const page = await listAttestations(db, {
        storedHash,
        limit,
        ...(agent === undefined ? {} : { agent }),
      });
      return page.data.map((record): IndexedAttestationRef => ({
        address: record.batch?.address ?? record.id,
        batchIndex: record.batch?.index ?? null,
        txSignature: record.txSignature,
        agent: record.agent,
      }));
    },
  };
}
