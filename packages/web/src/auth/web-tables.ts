/**
 * The tables of the web app's sign-in (migrations 2026-11-21T0200-web-sign-in and
 * 2026-11-23T0200-web-secrets in @abas/db).
 */
import type { Database } from "@abas/db";
import type { Kysely } from "kysely";

export type SignInNoncesTable = {
  nonce: string;
  /** SHA-256 (hex) of the sign-in cookie of the browser the nonce was issued to. */
  binding_hash: string;
  /** Unix ms. */
  issued_at: number;
  expires_at: number;
  used_at: number | null;
};

export type SessionsTable = {
  /** SHA-256 (hex) of the session cookie's token. */
  token_hash: string;
  /** The wallet address that signed in. */
  address: string;
  /** The synchronizer token every state-changing request must echo in X-CSRF-Token. */
  csrf_token: string;
  created_at: number;
  expires_at: number;
};

export type SecretsTable = {
  name: string;
  /** Hex of 32 random bytes. */
  value: string;
};

export type WebTables = {
  web_sign_in_nonces: SignInNoncesTable;
  web_sessions: SessionsTable;
  web_secrets: SecretsTable;
};

export type WebDatabase = Kysely<Database & WebTables>;

export function withWebTables(db: Kysely<Database>): WebDatabase {
  return db.withTables<WebTables>();
}
