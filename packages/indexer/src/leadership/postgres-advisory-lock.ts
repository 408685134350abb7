/**
 * PostgreSQL leadership: a session-level `pg_try_advisory_lock` held on one dedicated pool
 * connection for as long as this indexer leads. The server releases it when that session ends,
 * so a leader that crashes or loses its connection frees the lock for another indexer at once.
 * The holder keeps its session busy; when that fails, the lock may be gone, so it stops leading.
 */
import type { IndexerDatabase } from "../indexer-database.js";
import type { Logger } from "../logger.js";
import { LeaseState, type LeaderElection, type LeaderLease } from "./leader-lease.js";

/** The advisory lock key: "ABAS" in ASCII. */
export const INDEXER_ADVISORY_LOCK_KEY = 0x41424153;

export type PostgresLeaderElectionOptions = Readonly<{
  db: IndexerDatabase;
  logger: Logger;
  /** How long each keep-alive query on the lock's session sleeps; also how long a release may wait. Default 250 ms. */
  sessionCheckMs?: number;
}>;

export function createPostgresLeaderElection({
  db,
  logger,
  sessionCheckMs = 250,
}: PostgresLeaderElectionOptions): LeaderElection {
  return {
    tryAcquire: () =>
      new Promise<LeaderLease | undefined>((resolve, reject) => {
        let lease: LeaseState | undefined;
        let answered = false;
        const answer = (value: LeaderLease | undefined): void => {
          answered = true;
          resolve(value);
        };
        const session = db.connection().execute(async (connection) => {
          const { acquired } = await connection
            .selectNoFrom((eb) =>
              eb.fn<boolean>("pg_try_advisory_lock", [eb.lit(INDEXER_ADVISORY_LOCK_KEY)]).as("acquired"),
            )
            .executeTakeFirstOrThrow();
          if (!acquired) return answer(undefined);
          const state = new LeaseState();
          lease = state;
          answer({
            get held() {
              return state.held;
            },
            ended: state.ended,
            release: async () => {
              state.end(true);
              await session.catch(() => undefined);
            },
          });
          // The session is kept busy with short sleeps rather than left idle between pings: the pg
          // client reports a lost connection to a running query (caught here), while on an idle
          // checked-out client it would be an 'error' event that nothing listens to.
          while (state.held) {
            await connection
              .selectNoFrom((eb) => eb.fn("pg_sleep", [eb.lit(sessionCheckMs / 1000)]).as("alive"))
              .execute();
          }
          await connection
            .selectNoFrom((eb) =>
              eb.fn<boolean>("pg_advisory_unlock", [eb.lit(INDEXER_ADVISORY_LOCK_KEY)]).as("released"),
            )
            .execute();
        });
        session.then(
          () => lease?.end(false),
          (error: unknown) => {
            if (!answered) return reject(error);
            if (lease?.held)
              logger.error({ err: error }, "the leader's database session failed; leadership lost");
            lease?.end(false);
          },
        );
      }),
  };
}
