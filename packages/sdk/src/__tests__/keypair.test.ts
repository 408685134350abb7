import assert from "node:assert/strict";
import { createPrivateKey, createPublicKey } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { ABAS_SDK__INVALID_KEY_PAIR, isAbasError } from "@abas/errors";
import {
  generateKeyPairSigner,
  getAddressDecoder,
  getBase58Decoder,
  signBytes,
  verifySignature,
  type KeyPairSigner,
} from "@solana/kit";

import { generateSecretKey, loadKeypair, prepareKeypair } from "../keypair.js";

function assertInvalidKeyPair(error: unknown, reasonPattern?: RegExp): true {
  assert.ok(
    isAbasError(error, ABAS_SDK__INVALID_KEY_PAIR),
    `expected INVALID_KEY_PAIR, got ${String(error)}`,
  );
  if (reasonPattern) assert.match(error.context.reason, reasonPattern);
  return true;
}

async function assertSignerFor(signer: KeyPairSigner, secretKey: Uint8Array): Promise<void> {
  assert.equal(signer.address, getAddressDecoder().decode(secretKey.subarray(32)));
  const message = new TextEncoder().encode("abas");
  const signature = await signBytes(signer.keyPair.privateKey, message);
  assert.ok(await verifySignature(signer.keyPair.publicKey, signature, message));
}

describe("generateSecretKey", () => {
  it("makes a fresh seed and its own public key, as node:crypto derives it", async () => {
    // When two keys are made
    const [first, second] = [generateSecretKey(), generateSecretKey()];
    // Then each holds the public key of its seed, and they differ
    for (const secretKey of [first, second]) {
      const privateKey = createPrivateKey({
        key: Buffer.concat([
          Buffer.from("302e020100300506032b657004220420", "hex"),
          secretKey.subarray(0, 32),
        ]),
        format: "der",
        type: "pkcs8",
      });
      const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
      assert.deepEqual(secretKey.subarray(32), new Uint8Array(spki.subarray(spki.length - 32)));
      assert.equal((await loadKeypair(secretKey)).address, getBase58Decoder().decode(secretKey.subarray(32)));
    }
    assert.notDeepEqual(first, second);
  });
});

describe("loadKeypair", () => {
  let directory: string;
  before(() => {
    directory = mkdtempSync(join(tmpdir(), "abas-sdk-keys-"));
  });
  after(() => rmSync(directory, { recursive: true, force: true }));

  it("loads 64 secret key bytes, as a Uint8Array or an array of numbers", async () => {
    const secretKey = generateSecretKey();
    await assertSignerFor(await loadKeypair(secretKey), secretKey);
    await assertSignerFor(await loadKeypair(Array.from(secretKey)), secretKey);
  });

  it("loads a base58 secret key, as wallets export it", async () => {
    const secretKey = generateSecretKey();
    await assertSignerFor(await loadKeypair(getBase58Decoder().decode(secretKey)), secretKey);
  });

  it("loads a Solana CLI id.json file, and a JSON array given as a string", async () => {
    // Given a key file as solana-keygen writes it
    const secretKey = generateSecretKey();
    const path = join(directory, "id.json");
    writeFileSync(path, JSON.stringify(Array.from(secretKey)));
    // Then the path and the file's content both load the key
    await assertSignerFor(await loadKeypair(path), secretKey);
    await assertSignerFor(await loadKeypair(JSON.stringify(Array.from(secretKey))), secretKey);
  });

  it("returns a KeyPairSigner given one", async () => {
    const signer = await generateKeyPairSigner();
    assert.equal(await loadKeypair(signer), signer);
    assert.equal(prepareKeypair(signer).address, signer.address);
  });

  it("refuses secret key bytes whose public key does not belong to the seed", async () => {
    // Given the seed of one key followed by the public key of another
    const mismatched = Uint8Array.from([
      ...generateSecretKey().subarray(0, 32),
      ...generateSecretKey().subarray(32),
    ]);
    // Then it is refused synchronously, before any signer is made
    assert.throws(
      () => prepareKeypair(mismatched, "agentKeypair"),
      (error) =>
        assertInvalidKeyPair(error, /^agentKeypair holds a public key that does not belong to its seed$/),
    );
    await assert.rejects(
      () => loadKeypair(mismatched),
      (error) => assertInvalidKeyPair(error),
    );
  });

  it("refuses the wrong number of bytes and bytes out of range", () => {
    assert.throws(
      () => prepareKeypair(new Uint8Array(32)),
      (error) => assertInvalidKeyPair(error, /is 32 bytes/),
    );
    assert.throws(
      () => prepareKeypair([...Array(63).fill(1), 256]),
      (error) => assertInvalidKeyPair(error, /only integers from 0 to 255/),
    );
  });

  it("refuses a missing or malformed key file, naming the file but never key material", () => {
    const missing = join(directory, "missing.json");
    assert.throws(
      () => prepareKeypair(missing),
      (error) => assertInvalidKeyPair(error, /ENOENT/),
    );
    const notJson = join(directory, "not-json.json");
    writeFileSync(notJson, "hello");
    assert.throws(
      () => prepareKeypair(notJson),
      (error) => assertInvalidKeyPair(error, /is not JSON/),
    );
    const notArray = join(directory, "object.json");
    writeFileSync(notArray, '{"secretKey":[]}');
    assert.throws(
      () => prepareKeypair(notArray, "agentKeypair"),
      (error) =>
        assertInvalidKeyPair(
          error,
          new RegExp(`^agentKeypair \\(key file ${notArray}\\) is not a JSON array`),
        ),
    );
    const short = join(directory, "short.json");
    writeFileSync(short, "[1,2,3]");
    assert.throws(
      () => prepareKeypair(short),
      (error) => assertInvalidKeyPair(error, new RegExp(`^keypair \\(key file ${short}\\) is 3 bytes`)),
    );
  });

  it("does not echo a malformed base58 key in its error", () => {
    // Given a base58 key with its last characters cut off
    const truncated = getBase58Decoder().decode(generateSecretKey()).slice(0, -4);
    // Then it is read as a key (not a path) and its text is not in the message
    assert.throws(
      () => prepareKeypair(truncated),
      (error) =>
        assertInvalidKeyPair(error, /bytes; a Solana secret key is 64/) && !String(error).includes(truncated),
    );
  });

  it("never shows a string that is neither a key nor a path, which may be a mistyped key", () => {
    const secret = getBase58Decoder().decode(generateSecretKey());
    for (const mistyped of [
      `${secret.slice(0, 10)}0${secret.slice(11)}`,
      `"${secret}"`,
      JSON.stringify({ secretKey: [...generateSecretKey()] }),
    ]) {
      assert.throws(
        () => prepareKeypair(mistyped, "agentKeypair"),
        (error) =>
          assertInvalidKeyPair(
            error,
            /^agentKeypair is neither a secret key .* it is not shown, as it may be a mistyped key$/,
          ) &&
          !JSON.stringify(error).includes(mistyped.slice(2, 30)) &&
          (error as Error).cause === undefined,
      );
    }
  });

  it("refuses values that are no key at all", () => {
    for (const value of [undefined, null, 42, {}, { address: "x" }, ""]) {
      assert.throws(
        () => prepareKeypair(value as never, "operatorKeypair"),
        (error) => assertInvalidKeyPair(error, /^operatorKeypair /),
      );
    }
  });
});
