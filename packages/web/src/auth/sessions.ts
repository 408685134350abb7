/** Signed-in sessions, in the database so every replica knows them. The cookie holds the token. */
import { deleteWebSession, findWebSession, storeWebSession, type Database } from "@abas/db";
import type { Kysely } from "kysely";

import { randomToken, sha256Hex } from "./secrets.js";

export interface Session {
  readonly address: string;
  readonly csrfToken: string;
  /** Unix ms. */
  readonly expiresAt: number;
}

export async function openSession(
  db: Kysely<Database>,
  address: string,
  options: { now: number; ttlMs: number },
): Promise<{ token: string; session: Session }> {
  const token = randomToken();
  const session: Session = { address, csrfToken: randomToken(), expiresAt: options.now + options.ttlMs };
  await storeWebSession(db, {
    tokenHash: sha256Hex(token),
    address,
    csrfToken: session.csrfToken,
    createdAt: options.now,
    expiresAt: session.expiresAt,
  });
  return { token, session };
}

/** The live session of a cookie token, or undefined. */
export async function findSession(
  db: Kysely<Database>,
  token: string,
  now: number,
): Promise<Session | undefined> {
  const found = await findWebSession(db, sha256Hex(token));
  if (found === undefined || found.expiresAt <= now) return undefined;
  return { address: found.address, csrfToken: found.csrfToken, expiresAt: found.expiresAt };
}

export async function closeSession(db: Kysely<Database>, token: string): Promise<void> {
  await deleteWebSession(db, sha256Hex(token));
}
