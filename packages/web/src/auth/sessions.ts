/** Signed-in sessions, in the database so every replica knows them. The cookie holds the token. */
import { randomToken, sha256Hex } from "./secrets.js";
import type { WebDatabase } from "./web-tables.js";

export interface Session {
  readonly address: string;
  readonly csrfToken: string;
  /** Unix ms. */
  readonly expiresAt: number;
}

export async function openSession(
  db: WebDatabase,
  address: string,
  options: { now: number; ttlMs: number },
): Promise<{ token: string; session: Session }> {
  await db.deleteFrom("web_sessions").where("expires_at", "<", options.now).execute();
  const token = randomToken();
  const session: Session = { address, csrfToken: randomToken(), expiresAt: options.now + options.ttlMs };
  await db
    .insertInto("web_sessions")
    .values({
      token_hash: sha256Hex(token),
      address,
      csrf_token: session.csrfToken,
      created_at: options.now,
      expires_at: session.expiresAt,
    })
    .execute();
  return { token, session };
}

/** The live session of a cookie token, or undefined. */
export async function findSession(db: WebDatabase, token: string, now: number): Promise<Session | undefined> {
  const row = await db
    .selectFrom("web_sessions")
    .select(["address", "csrf_token", "expires_at"])
    .where("token_hash", "=", sha256Hex(token))
    .executeTakeFirst();
  if (row === undefined || Number(row.expires_at) <= now) return undefined;
  return { address: row.address, csrfToken: row.csrf_token, expiresAt: Number(row.expires_at) };
}

export async function closeSession(db: WebDatabase, token: string): Promise<void> {
  await db.deleteFrom("web_sessions").where("token_hash", "=", sha256Hex(token)).execute();
}
