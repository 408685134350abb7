import type { DatabaseHandle } from "@abas/db";

import type { Logger } from "../logger.js";
import type { LeaderElection } from "./leader-lease.js";
import { createPostgresLeaderElection } from "./postgres-advisory-lock.js";
import { createSqliteLeaderElection } from "./sqlite-lease.js";

/** An advisory lock on PostgreSQL (several indexers, one leads); a lease row on SQLite (one process indexes). */
export function createLeaderElection(
  database: DatabaseHandle,
  instanceId: string,
  logger: Logger,
): LeaderElection {
  return database.dialect === "postgres"
    ? createPostgresLeaderElection({ db: database.db, logger })
    : createSqliteLeaderElection({ db: database.db, logger, instanceId });
}
