/**
 * Sign-In With Solana, server side. The server issues a one-time nonce, stored in the database with
 * its expiry and bound to the browser that asked for it (through the sign-in cookie); the wallet
 * signs a message naming this site's domain, the wallet address, the statement, the URI, version 1,
 * the ledger's chain id, the nonce, the issue time and the expiration time; the server then checks
 * every field, the Ed25519 signature (node:crypto) and redeems the nonce exactly once, even when
 * several replicas share the database.
 */
import { randomBytes } from "node:crypto";

import { findSignInNonce, redeemSignInNonce, storeSignInNonce, type Database } from "@abas/db";
import type { Kysely } from "kysely";

import { decodeAddress } from "../base58.js";
import { verifyEd25519 } from "./ed25519.js";
import { createSignInMessageText, parseSignInMessageText, type SignInFields } from "./siws-message.js";

export const SIGN_IN_STATEMENT =
  "Sign in to ABAS to manage this wallet's API keys. Signing costs nothing and sends no transaction.";
export const SIGN_IN_VERSION = "1";
/** Longer than any message this server asks for; a bound on what is decoded and parsed. */
const MAX_MESSAGE_BYTES = 2_048;
/** Used nonces and expired ones are kept this long after expiry, then deleted. */
const NONCE_RETENTION_MS = 60 * 60 * 1000;

/** What the message must say about where and on which ledger it is used. */
export interface SignInExpectations {
  /** This site's host (and port): `abas.example.com`, `127.0.0.1:8080`. */
  readonly domain: string;
  /** The page the user signs in on. */
  readonly uri: string;
  readonly chainId: string;
}

/** The fields a wallet puts in the message; the address is the wallet's own. */
export interface SignInChallenge {
  readonly domain: string;
  readonly statement: string;
  readonly uri: string;
  readonly version: string;
  readonly chainId: string;
  readonly nonce: string;
  readonly issuedAt: string;
  readonly expirationTime: string;
}

export type SignInErrorCode =
  | "malformed-request"
  | "unreadable-message"
  | "wrong-domain"
  | "wrong-address"
  | "wrong-uri"
  | "wrong-version"
  | "wrong-chain"
  | "wrong-statement"
  | "bad-signature"
  | "unknown-nonce"
  | "nonce-from-another-browser"
  | "altered-message"
  | "expired-nonce"
  | "used-nonce";

export class SignInError extends Error {
  override readonly name = "SignInError";
  constructor(
    readonly code: SignInErrorCode,
    message: string,
    readonly statusCode = 401,
  ) {
    super(message);
  }
}

const isoOf = (unixMs: number): string => new Date(unixMs).toISOString();

export async function issueSignInChallenge(
  db: Kysely<Database>,
  options: { expectations: SignInExpectations; bindingHash: string; now: number; ttlMs: number },
): Promise<SignInChallenge> {
  const { expectations, bindingHash, now, ttlMs } = options;
  // EIP-4361: at least 8 alphanumeric characters. 128 random bits in hex.
  const nonce = randomBytes(16).toString("hex");
  await storeSignInNonce(
    db,
    { nonce, bindingHash, issuedAt: now, expiresAt: now + ttlMs },
    NONCE_RETENTION_MS,
  );
  return {
    domain: expectations.domain,
    statement: SIGN_IN_STATEMENT,
    uri: expectations.uri,
    version: SIGN_IN_VERSION,
    chainId: expectations.chainId,
    nonce,
    issuedAt: isoOf(now),
    expirationTime: isoOf(now + ttlMs),
  };
}

export interface SignInAttempt {
  /** The wallet address that signed, base58. */
  readonly address: string;
  /** The exact bytes the wallet signed. */
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

function readMessage(bytes: Uint8Array): SignInFields {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new SignInError("unreadable-message", "The signed message is not UTF-8 text.", 400);
  }
  const fields = parseSignInMessageText(text);
  if (fields === undefined) {
    throw new SignInError(
      "unreadable-message",
      "The signed message is not a Sign-In With Solana message.",
      400,
    );
  }
  return fields;
}

function expectField(
  code: SignInErrorCode,
  name: string,
  actual: string | undefined,
  expected: string,
): void {
  if (actual !== expected) {
    throw new SignInError(
      code,
      `The message's ${name} is ${actual === undefined ? "missing" : `"${actual}"`}; expected "${expected}".`,
    );
  }
}

/** The signed-in wallet address; throws a SignInError that says what is wrong. */
export async function completeSignIn(
  db: Kysely<Database>,
  options: { expectations: SignInExpectations; bindingHash: string; attempt: SignInAttempt; now: number },
): Promise<string> {
  const { expectations, bindingHash, attempt, now } = options;
  const publicKey = decodeAddress(attempt.address);
  if (publicKey === undefined) {
    throw new SignInError("malformed-request", "The address is not a base58 Solana public key.", 400);
  }
  if (attempt.signature.length !== 64) {
    throw new SignInError("malformed-request", "The signature must be 64 bytes (Ed25519).", 400);
  }
  if (attempt.message.length === 0 || attempt.message.length > MAX_MESSAGE_BYTES) {
    throw new SignInError("malformed-request", `The message must be 1 to ${MAX_MESSAGE_BYTES} bytes.`, 400);
  }

  const fields = readMessage(attempt.message);
  if (fields.domain !== expectations.domain) {
    throw new SignInError(
      "wrong-domain",
      `The message signs in to ${fields.domain}, not to ${expectations.domain}: sign in on this site itself.`,
    );
  }
  expectField("wrong-address", "address", fields.address, attempt.address);
  expectField("wrong-uri", "URI", fields.uri, expectations.uri);
  expectField("wrong-version", "version", fields.version, SIGN_IN_VERSION);
  expectField("wrong-chain", "chain ID", fields.chainId, expectations.chainId);
  expectField("wrong-statement", "statement", fields.statement, SIGN_IN_STATEMENT);
  if (!verifyEd25519(publicKey, attempt.message, attempt.signature)) {
    throw new SignInError(
      "bad-signature",
      `The signature does not verify for ${attempt.address} over the message.`,
    );
  }

  const nonce = fields.nonce ?? "";
  const row = await findSignInNonce(db, nonce);
  if (row === undefined) {
    throw new SignInError(
      "unknown-nonce",
      "This server did not issue the message's nonce: start the sign-in again.",
    );
  }
  if (row.bindingHash !== bindingHash) {
    throw new SignInError(
      "nonce-from-another-browser",
      "The nonce was issued to another browser session: start the sign-in again.",
    );
  }
  const { issuedAt, expiresAt } = row;
  // With the nonce known, the whole message must be exactly the one this server asked for.
  const expectedText = createSignInMessageText({
    domain: expectations.domain,
    address: attempt.address,
    statement: SIGN_IN_STATEMENT,
    uri: expectations.uri,
    version: SIGN_IN_VERSION,
    chainId: expectations.chainId,
    nonce,
    issuedAt: isoOf(issuedAt),
    expirationTime: isoOf(expiresAt),
  });
  if (new TextDecoder().decode(attempt.message) !== expectedText) {
    throw new SignInError(
      "altered-message",
      "The message's issue or expiration time, or another field, differs from the challenge: start again.",
    );
  }
  if (now >= expiresAt) {
    throw new SignInError(
      "expired-nonce",
      `The sign-in request expired at ${isoOf(expiresAt)}: start again.`,
    );
  }
  if (row.usedAt !== null) {
    throw new SignInError("used-nonce", "This sign-in message was already used: start the sign-in again.");
  }
  // Redeem exactly once: of two replicas racing with the same message, one wins.
  if (!(await redeemSignInNonce(db, nonce, now))) {
    throw new SignInError("used-nonce", "This sign-in message was already used: start the sign-in again.");
  }
  return attempt.address;
}
