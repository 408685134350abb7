import type { DatabaseHandle } from "@abas/db";

import type { Logger } from "../logger.js";
import type { LeaderElection } from "./leader-lease.js";
import { createLeaseRowElection } from "./leader-lease-row.js";

/** A lease row with fencing, on SQLite and PostgreSQL alike (leader-lease-row.ts). */
export function createLeaderElection(
  database: DatabaseHandle,
  instanceId: string,
  logger: Logger,
  leaseMs?: number,
): LeaderElection {
  return createLeaseRowElection({
    database,
    logger,
    instanceId,
    ...(leaseMs === undefined ? {} : { leaseMs }),
  });
}
