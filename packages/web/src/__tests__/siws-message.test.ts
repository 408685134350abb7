/**
 * The Sign-In With Solana message text: written in the Wallet Standard's format, and read back
 * strictly (anything the writer would not produce is not a message).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { createSignInMessageText, parseSignInMessageText, type SignInFields } from "../auth/siws-message.js";

const ADDRESS = "5ndYQVthzzDPH7wcSLxXbup63fUybVQRg6rGQVd8Ki65";

test("a message with every field is written in the standard's order and read back", () => {
  // Given every field of the Wallet Standard's signIn input
  const fields: SignInFields = {
    domain: "abas.example.com",
    address: ADDRESS,
    statement: "Sign in to ABAS.",
    uri: "https://abas.example.com/app/api-keys",
    version: "1",
    chainId: "solana:mainnet",
    nonce: "9f1c1e0b6f1d4a3f",
    issuedAt: "2026-11-21T18:50:00.000Z",
    expirationTime: "2026-11-21T18:55:00.000Z",
    notBefore: "2026-11-21T18:50:00.000Z",
    requestId: "r-1",
    resources: ["https://abas.example.com/terms", "ipfs://bafy"],
  };

  // When it is written
  const text = createSignInMessageText(fields);

  // Then it reads as the standard's message, and parses back to the same fields
  assert.equal(
    text,
    "abas.example.com wants you to sign in with your Solana account:\n" +
      `${ADDRESS}\n\nSign in to ABAS.\n\n` +
      "URI: https://abas.example.com/app/api-keys\nVersion: 1\nChain ID: solana:mainnet\n" +
      "Nonce: 9f1c1e0b6f1d4a3f\nIssued At: 2026-11-21T18:50:00.000Z\n" +
      "Expiration Time: 2026-11-21T18:55:00.000Z\nNot Before: 2026-11-21T18:50:00.000Z\n" +
      "Request ID: r-1\nResources:\n- https://abas.example.com/terms\n- ipfs://bafy",
  );
  assert.deepEqual(parseSignInMessageText(text), fields);
});

test("the shortest messages read back too", () => {
  for (const fields of [
    { domain: "localhost:8080", address: ADDRESS },
    { domain: "localhost:8080", address: ADDRESS, statement: "Hello" },
    { domain: "localhost:8080", address: ADDRESS, nonce: "abcdefgh" },
  ]) {
    assert.deepEqual(parseSignInMessageText(createSignInMessageText(fields)), fields);
  }
});

test("text the writer would not produce is not a message", () => {
  const text = createSignInMessageText({
    domain: "a.example",
    address: ADDRESS,
    statement: "Hi",
    nonce: "abcdefgh",
  });
  for (const altered of [
    `${text}\n`,
    ` ${text}`,
    text.replace("Nonce: abcdefgh", "Nonce: abcdefgh\nNonce: ijklmnop"),
    text.replace("Nonce: abcdefgh", "Nonce: abcdefgh\nColor: blue"),
    text.replace("Hi", "Hi\n\nand more"),
    text.replace("sign in with your Solana account", "sign in with your Ethereum account"),
    "please sign this",
  ]) {
    assert.equal(parseSignInMessageText(altered), undefined, JSON.stringify(altered));
  }
});
