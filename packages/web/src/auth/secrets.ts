import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

import { loadOrStoreWebSecret, type Database } from "@abas/db";
import type { Kysely } from "kysely";

/** A random token for cookies and CSRF: 32 bytes, base64url. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Constant-time equality of two strings (false when their lengths differ). */
export function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The name of the key the sign-in cookie is signed with, in `web_secrets`. */
const SIGN_IN_COOKIE_KEY = "sign-in-cookie";

/** The shared signing key: made by the first replica that needs it, read by every other one. */
export async function loadSigningKey(db: Kysely<Database>): Promise<Buffer> {
  const value = await loadOrStoreWebSecret(db, SIGN_IN_COOKIE_KEY, randomBytes(32).toString("hex"));
  return Buffer.from(value, "hex");
}

const mac = (key: Buffer, value: string): string =>
  createHmac("sha256", key).update(value, "utf8").digest("base64url");

/** `<random>.<HMAC of it>`: a token only this service can mint. */
export function signedToken(key: Buffer): string {
  const value = randomToken();
  return `${value}.${mac(key, value)}`;
}

/** Whether `token` was minted by `signedToken` with this key (a double-submit value an attacker chose is not). */
export function isSignedToken(key: Buffer, token: string): boolean {
  const dot = token.indexOf(".");
  if (dot <= 0) return false;
  return sameSecret(token.slice(dot + 1), mac(key, token.slice(0, dot)));
}
