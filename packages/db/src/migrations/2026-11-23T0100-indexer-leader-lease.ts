import type { Kysely } from "kysely";

/**
 * The indexer's leader lease, on both dialects: one row saying which indexer leads, until when
 * (the database's clock), and under which epoch. Every write of the leader checks, in its own
 * transaction, that the row still names it with its epoch (fencing): a leader that froze or lost
 * its network and comes back after another took over can no longer write. It replaces the
 * PostgreSQL advisory lock, which a frozen leader held for as long as its connection stayed open.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("indexer_leader")
    .addColumn("id", "integer", (c) => c.primaryKey())
    .addColumn("holder", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("host", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("pid", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("epoch", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("expires_at", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await (db as Kysely<{ indexer_leader: { id: number } }>)
    .insertInto("indexer_leader")
    .values({ id: 1 })
    .execute();
}
