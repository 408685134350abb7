/**
 * The runtime-specific parts behind `#platform`: Ed25519 public keys of seeds agree between
 * node:crypto and @noble/curves (RFC 8032 test vector 1, and random seeds), a key file is read in
 * Node.js and refused with a reason elsewhere, where no file system is used.
 */
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";

import * as inNode from "../platform/node.js";
import * as inBrowsers from "../platform/web.js";

const fromHex = (hex: string): Uint8Array => Uint8Array.from(Buffer.from(hex, "hex"));

describe("publicKeyOfSeed", () => {
  it("gives RFC 8032's public key for test vector 1 in both runtimes", () => {
    const seed = fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    const publicKey = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
    assert.equal(Buffer.from(inNode.publicKeyOfSeed(seed)).toString("hex"), publicKey);
    assert.equal(Buffer.from(inBrowsers.publicKeyOfSeed(seed)).toString("hex"), publicKey);
  });

  it("agrees between node:crypto and @noble/curves on random seeds", () => {
    for (let i = 0; i < 20; i++) {
      const seed = generateKeyPairSync("ed25519")
        .privateKey.export({ format: "der", type: "pkcs8" })
        .subarray(-32);
      assert.deepEqual(
        inBrowsers.publicKeyOfSeed(new Uint8Array(seed)),
        inNode.publicKeyOfSeed(new Uint8Array(seed)),
      );
    }
  });
});

describe("readKeyFile", () => {
  it("reads a key file in Node.js and refuses the path elsewhere, saying what to pass instead", () => {
    const dir = mkdtempSync(join(tmpdir(), "abas-key-file-"));
    try {
      const path = join(dir, "agent.json");
      writeFileSync(path, "[1,2,3]");
      assert.deepEqual(inNode.readKeyFile(path), { ok: true, path, text: "[1,2,3]" });
      const refused = inBrowsers.readKeyFile(path);
      assert.equal(refused.ok, false);
      assert.match(!refused.ok ? refused.reason : "", /read only in Node\.js; pass the secret key bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("names the error code of an unreadable file in Node.js", () => {
    const read = inNode.readKeyFile("/nonexistent/abas/agent.json");
    assert.equal(read.ok, false);
    assert.match(!read.ok ? read.reason : "", /cannot be read \(ENOENT\): \/nonexistent\/abas\/agent\.json/);
  });
});
