/**
 * LiteSVM's addProgram loads the .so with lenient ELF checks; a cluster deploys with strict ones.
 * Every test ledger deploys it the way `solana program deploy` does; this test checks the
 * deployment itself and uses the deployed program.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  buildInitializeInstruction,
  decodeAgentAccount,
  decodeAttestationAccount,
} from "@abas/program-client";
import { getAddressEncoder, type Address } from "@solana/kit";

import {
  attest,
  createTestLedger,
  expectSuccess,
  hashPayload,
  readAccount,
  readProgramBytes,
  registerAgent,
  send,
} from "./harness.js";
import { BPF_LOADER_UPGRADEABLE_ADDRESS, WRITE_CHUNK_SIZE } from "@abas/program-client";

test("the program deploys through the BPF Upgradeable Loader and then initializes, registers and attests", async () => {
  // Given the built .so, deployed by transactions: buffer, Write in chunks, DeployWithMaxDataLen
  const programBytes = readProgramBytes();
  const ledger = await createTestLedger({ initialize: false });
  const { deployment } = ledger;
  assert.equal(deployment.transactionCount, 2 + Math.ceil(programBytes.length / WRITE_CHUNK_SIZE));

  // Then the program account is the loader's, executable, pointing at its ProgramData
  const programAccount = ledger.svm.getAccount(ledger.programId);
  assert.ok(programAccount.exists);
  assert.equal(programAccount.programAddress, BPF_LOADER_UPGRADEABLE_ADDRESS);
  assert.equal(programAccount.executable, true);
  const encode = (a: Address) => getAddressEncoder().encode(a);
  assert.deepEqual(
    Uint8Array.from(programAccount.data),
    Uint8Array.from([2, 0, 0, 0, ...encode(deployment.programData)]),
  );

  // And the ProgramData holds the deployment slot, the upgrade authority and exactly our ELF
  const programData = readAccount(ledger, deployment.programData);
  assert.equal(programData.owner, BPF_LOADER_UPGRADEABLE_ADDRESS);
  const view = new DataView(programData.data.buffer);
  assert.equal(view.getUint32(0, true), 3);
  assert.equal(view.getBigUint64(4, true), deployment.deploySlot);
  assert.equal(programData.data[12], 1);
  assert.deepEqual(programData.data.subarray(13, 45), encode(ledger.payer.address));
  assert.deepEqual(programData.data.subarray(45, 45 + programBytes.length), programBytes);

  // When initialize, register_agent and attest run through the deployed program
  expectSuccess(
    await send(ledger, [
      await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
    ]),
  );
  const registered = await registerAgent(ledger);
  const recorded = await attest(ledger, {
    ...registered,
    storedHash: hashPayload({ deployed: "through the upgradeable loader" }),
  });

  // Then each succeeds and leaves the documented accounts
  assert.equal(readAccount(ledger, ledger.credential).owner, ledger.programId);
  assert.equal(decodeAgentAccount(readAccount(ledger, registered.agentAccount).data).attestationCount, 1n);
  const attestation = decodeAttestationAccount(readAccount(ledger, recorded.attestation).data);
  assert.equal(attestation.signer, registered.agent.address);
  assert.equal(attestation.slot, ledger.svm.getClock().slot);
});
