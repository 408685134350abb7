import assert from "node:assert/strict";
import { describe, it } from "node:test";

import type { KeyPairSigner } from "@solana/kit";

import type { AttestationReceipt, BatchItemReceipt } from "../receipts.js";
import { verifyReceiptOffline, type ReceiptCheckName } from "../verify-receipt.js";
import { buildOfflineBatch, buildOfflineReceipt, flipHex, newAgent } from "./support/offline-receipts.js";

/** The names of the failed checks. */
async function failedChecks(receipt: unknown): Promise<ReceiptCheckName[]> {
  const { checks } = await verifyReceiptOffline(receipt);
  return (Object.entries(checks) as [ReceiptCheckName, { ok: boolean }][])
    .filter(([, check]) => !check.ok)
    .map(([name]) => name);
}

describe("verifyReceiptOffline", () => {
  let agent: KeyPairSigner;

  it("accepts a well-formed receipt in normal and in privacy mode", async () => {
    agent = await newAgent();
    for (const privacyMode of [false, true]) {
      const verification = await verifyReceiptOffline(await buildOfflineReceipt(agent, { privacyMode }));
      assert.equal(verification.valid, true, JSON.stringify(verification.checks));
      assert.equal(verification.kind, "attestation");
      assert.deepEqual(Object.keys(verification.checks), [
        "format",
        "storedHash",
        "agentSignature",
        "address",
      ]);
    }
  });

  it("survives a trip through JSON", async () => {
    const receipt = await buildOfflineReceipt(agent, { privacyMode: true });
    assert.equal((await verifyReceiptOffline(JSON.parse(JSON.stringify(receipt)))).valid, true);
  });

  it("fails the check that each tampered field breaks", async () => {
    const normal = await buildOfflineReceipt(agent);
    const secret = await buildOfflineReceipt(agent, { privacyMode: true });
    const other = await buildOfflineReceipt(await newAgent());
    const cases: [what: string, receipt: AttestationReceipt, failed: ReceiptCheckName[]][] = [
      // Given a normal receipt whose action hash is another, Then it no longer is the stored hash
      ["actionHash", { ...normal, actionHash: flipHex(normal.actionHash) }, ["storedHash"]],
      // The signed message and the PDA both depend on the stored hash
      [
        "storedHash",
        { ...normal, storedHash: flipHex(normal.storedHash) },
        ["storedHash", "agentSignature", "address"],
      ],
      ["salt", { ...secret, salt: flipHex(secret.salt!) }, ["storedHash"]],
      ["privacy actionHash", { ...secret, actionHash: flipHex(secret.actionHash) }, ["storedHash"]],
      ["actionType", { ...normal, actionType: "Transaction" }, ["agentSignature"]],
      ["privacyMode", { ...secret, privacyMode: false, salt: undefined }, ["storedHash", "agentSignature"]],
      ["agentSignature", { ...normal, agentSignature: other.agentSignature }, ["agentSignature"]],
      ["agent", { ...normal, agent: other.agent }, ["agentSignature", "address"]],
      ["programId", { ...normal, programId: other.operator }, ["agentSignature", "address"]],
      ["attestationAddress", { ...normal, attestationAddress: other.attestationAddress }, ["address"]],
    ];
    for (const [what, receipt, failed] of cases) {
      assert.deepEqual(await failedChecks(JSON.parse(JSON.stringify(receipt))), failed, what);
    }
  });

  it("reports every malformed field under format, and runs nothing else", async () => {
    const normal = await buildOfflineReceipt(agent);
    const secret = await buildOfflineReceipt(agent, { privacyMode: true });
    const cases: [receipt: unknown, problem: RegExp][] = [
      [null, /not an object/],
      [{ ...normal, actionHash: normal.actionHash.slice(1) }, /^actionHash: expected 64 hexadecimal/],
      [{ ...normal, agentSignature: "0OIl" }, /^agentSignature: expected a base58 Ed25519 signature/],
      [{ ...normal, actionType: "Payment" }, /^actionType: expected Transaction, ToolCall/],
      [{ ...normal, slot: -1 }, /^slot: expected an integer/],
      [{ ...normal, salt: secret.salt }, /^salt: only privacy-mode receipts have one/],
      [{ ...secret, salt: undefined }, /^salt: required in privacy mode/],
      [{ ...normal, agent: "agent" }, /^agent: expected a base58 address/],
    ];
    for (const [receipt, problem] of cases) {
      const verification = await verifyReceiptOffline(receipt);
      assert.equal(verification.valid, false);
      assert.match(verification.checks.format?.reason ?? "", problem);
      for (const [name, check] of Object.entries(verification.checks)) {
        if (name !== "format") assert.match(check.reason ?? "", /^not checked/);
      }
    }
  });

  describe("batch items", () => {
    let receipts: BatchItemReceipt[];

    it("accepts every item of a batch, each proven against the signed root", async () => {
      // Given a batch of 7 items (an uneven tree: the last node is carried up)
      receipts = await buildOfflineBatch(agent, 7);
      for (const receipt of receipts) {
        const verification = await verifyReceiptOffline(receipt);
        assert.equal(verification.valid, true, JSON.stringify(verification.checks));
        assert.equal(verification.kind, "batch-item");
        assert.deepEqual(Object.keys(verification.checks), [
          "format",
          "storedHash",
          "agentSignature",
          "merkleProof",
          "address",
        ]);
      }
    });

    it("fails the Merkle proof when the item, its position or its proof is changed", async () => {
      const [first, second] = receipts as [BatchItemReceipt, BatchItemReceipt];
      const last = receipts[6]!;
      const cases: [what: string, receipt: BatchItemReceipt, failed: ReceiptCheckName[]][] = [
        ["proof", { ...first, proof: [flipHex(first.proof[0]!), ...first.proof.slice(1)] }, ["merkleProof"]],
        ["shorter proof", { ...first, proof: first.proof.slice(1) }, ["merkleProof"]],
        ["index", { ...first, index: 1 }, ["merkleProof"]],
        ["leafHash", { ...second, leafHash: flipHex(second.leafHash) }, ["merkleProof"]],
        ["actionType", { ...second, actionType: "Decision" }, ["merkleProof"]],
        [
          "another item's hash",
          { ...second, actionHash: first.actionHash, storedHash: first.storedHash },
          ["storedHash", "merkleProof"],
        ],
        [
          "merkleRoot",
          { ...first, merkleRoot: flipHex(first.merkleRoot) },
          ["agentSignature", "merkleProof", "address"],
        ],
        [
          "batchActionTypes",
          { ...first, batchActionTypes: ["Decision", "ModelInvocation", "ToolCall"] },
          ["agentSignature"],
        ],
        // The count is signed; and in a tree of 8 the last item would need a sibling it lacks in 7
        ["itemCount", { ...last, itemCount: 8 }, ["agentSignature", "merkleProof"]],
        ["itemCount, first item", { ...first, itemCount: 8 }, ["agentSignature"]],
      ];
      for (const [what, receipt, failed] of cases) {
        assert.deepEqual(await failedChecks(receipt), failed, what);
      }
    });
  });
});
