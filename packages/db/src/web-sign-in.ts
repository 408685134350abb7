/**
 * The web app's Sign-In With Solana state: nonces, sessions and the key its sign-in cookie is
 * signed with. Kept in the database so that every replica behind a load balancer shares it; the
 * web app does the cryptography and hands over only hashes of what browsers hold.
 */
import type { Kysely } from "kysely";

import type { Database } from "./schema.js";

export interface SignInNonce {
  readonly nonce: string;
  /** SHA-256 (hex) of the sign-in cookie of the browser the nonce was issued to. */
  readonly bindingHash: string;
  /** Unix ms. */
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly usedAt: number | null;
}

/** Stores a new nonce, and forgets those that expired more than `retentionMs` before it was issued. */
export async function storeSignInNonce(
  db: Kysely<Database>,
  nonce: Omit<SignInNonce, "usedAt">,
  retentionMs: number,
): Promise<void> {
  await db
    .deleteFrom("web_sign_in_nonces")
    .where("expires_at", "<", nonce.issuedAt - retentionMs)
    .execute();
  await db
    .insertInto("web_sign_in_nonces")
    .values({
      nonce: nonce.nonce,
      binding_hash: nonce.bindingHash,
      issued_at: nonce.issuedAt,
      expires_at: nonce.expiresAt,
      used_at: null,
    })
    .execute();
}

export async function findSignInNonce(db: Kysely<Database>, nonce: string): Promise<SignInNonce | undefined> {
  const row = await db
    .selectFrom("web_sign_in_nonces")
    .selectAll()
    .where("nonce", "=", nonce)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    nonce: row.nonce,
    bindingHash: row.binding_hash,
    issuedAt: Number(row.issued_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

/**
 * Marks the nonce used at `now`; true only for the one caller that did (of two replicas racing with
 * the same message, one updates the row).
 */
export async function redeemSignInNonce(db: Kysely<Database>, nonce: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable("web_sign_in_nonces")
    .set({ used_at: now })
    .where("nonce", "=", nonce)
    .where("used_at", "is", null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface WebSession {
  /** SHA-256 (hex) of the session cookie's token. */
  readonly tokenHash: string;
  readonly address: string;
  readonly csrfToken: string;
  /** Unix ms. */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** Stores a new session, and forgets the sessions that expired before it was created. */
export async function storeWebSession(db: Kysely<Database>, session: WebSession): Promise<void> {
  await db.deleteFrom("web_sessions").where("expires_at", "<", session.createdAt).execute();
  await db
    .insertInto("web_sessions")
    .values({
      token_hash: session.tokenHash,
      address: session.address,
      csrf_token: session.csrfToken,
      created_at: session.createdAt,
      expires_at: session.expiresAt,
    })
    .execute();
}

/** The session of a token hash, expired or not (the caller compares `expiresAt` with its clock). */
export async function findWebSession(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<WebSession | undefined> {
  const row = await db
    .selectFrom("web_sessions")
    .selectAll()
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
  if (row === undefined) return undefined;
  return {
    tokenHash: row.token_hash,
    address: row.address,
    csrfToken: row.csrf_token,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

export async function deleteWebSession(db: Kysely<Database>, tokenHash: string): Promise<void> {
  await db.deleteFrom("web_sessions").where("token_hash", "=", tokenHash).execute();
}

/**
 * The secret stored under `name`: `candidate` when this call is the first to store one, otherwise
 * the value another caller (another replica) stored first.
 */
export async function loadOrStoreWebSecret(
  db: Kysely<Database>,
  name: string,
  candidate: string,
): Promise<string> {
  await db
    .insertInto("web_secrets")
    .values({ name, value: candidate })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .execute();
  const row = await db
    .selectFrom("web_secrets")
    .select("value")
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return row.value;
}
