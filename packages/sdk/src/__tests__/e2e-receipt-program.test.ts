/**
 * A receipt counts only for the ABAS program its verifier trusts. Anyone can deploy the program
 * again at an address of their own: that copy keeps its own agents (a key the real program revoked
 * registers there afresh) and, modified, can write any time it likes. Its receipts pass every other
 * check, each against the program the receipt names; a verifier that took the receipt's word for
 * its program would call them valid.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { AttestationClient } from "../client.js";
import { generateSecretKey } from "../keypair.js";
import type { Receipt } from "../receipts.js";
import { verifyReceipt, type ReceiptVerification } from "../verify-receipt.js";
import { fundedSecretKey, startTestLedger, type TestLedger } from "./support/local-ledger.js";
import { deployProgramCopy } from "./support/program-copy.js";

const failedChecks = (verification: ReceiptVerification): string[] =>
  Object.entries(verification.checks)
    .filter(([, check]) => !check.ok)
    .map(([name]) => name);

describe("receipts of a copy of the program deployed at another address", () => {
  let ledger: TestLedger;
  let copy: string;
  const receipts: Receipt[] = [];

  before(async () => {
    ledger = await startTestLedger();
    copy = await deployProgramCopy(ledger);
    // An agent registered with the copy, and an attestation and a batch it recorded there
    const operatorKeypair = await fundedSecretKey(ledger);
    const client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: generateSecretKey(),
      programId: copy,
    });
    await client.registerAgent({ operatorKeypair });
    const actionHash = await AttestationClient.hashAction("bank.transfer to mallory");
    receipts.push(await client.attest({ operatorKeypair, actionHash, actionType: "ToolCall" }));
    const batch = await client.batchAttest({
      operatorKeypair,
      attestations: [
        { actionHash: await AttestationClient.hashAction("first"), actionType: "ToolCall" },
        {
          actionHash: await AttestationClient.hashAction("second"),
          actionType: "ToolCall",
          privacyMode: true,
        },
      ],
    });
    receipts.push(...batch.receipts);
  });
  after(async () => {
    await ledger?.stop();
  });

  it("fails the program check of verifyReceipt (the local program by default) and of a client of the real program", async () => {
    const client = new AttestationClient({ rpcUrl: ledger.rpcUrl, agentKeypair: generateSecretKey() });
    for (const receipt of receipts) {
      for (const verification of [
        await verifyReceipt(receipt, { rpcUrl: ledger.rpcUrl }),
        await verifyReceipt(receipt, { rpcUrl: ledger.rpcUrl, programId: ledger.programId }),
        await client.verifyReceipt(receipt),
      ]) {
        assert.equal(verification.valid, false);
        assert.deepEqual(failedChecks(verification), ["program"], JSON.stringify(verification.checks));
        assert.equal(
          verification.checks.program?.reason,
          `the receipt is of the program ${copy}, not of ${ledger.programId}, the ABAS program this verifier trusts`,
        );
      }
    }
  });

  it("verifies them for a verifier that trusts that copy", async () => {
    const client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: generateSecretKey(),
      programId: copy,
    });
    for (const receipt of receipts) {
      assert.equal((await verifyReceipt(receipt, { rpcUrl: ledger.rpcUrl, programId: copy })).valid, true);
      assert.equal((await client.verifyReceipt(receipt)).valid, true);
    }
  });
});
