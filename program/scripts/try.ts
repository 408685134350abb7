/**
 * Try the program end to end without a cluster: deploys the built .so into an in-process SVM
 * through the BPF Upgradeable Loader, registers an agent, attests one action and prints the receipt.
 *
 *   npm start            (after `npm run program:build`)
 */
import { ActionType, bytesToHex, decodeAttestationAccount, getActionTypeName } from "@abas/program-client";
import { getBase58Decoder } from "@solana/kit";

import {
  attest,
  balanceOf,
  createTestLedger,
  hashPayload,
  programComputeUnits,
  readAccount,
  registerAgent,
  setLedgerTime,
} from "../tests/harness.js";

const SAMPLE_ACTION = {
  agent: "travel-assistant",
  tool: "flights.search",
  arguments: { from: "LIS", to: "SFO", date: "2026-03-14", passengers: 1 },
  result: { offers: 12, cheapest: { carrier: "TP", priceEur: 612 } },
};

async function main(): Promise<void> {
  console.log("ABAS — try it in process");
  console.log(
    "This runs LiteSVM (the Solana runtime) inside this Node process: no validator, no network, no real SOL.\n",
  );

  const ledger = await createTestLedger();
  const { deployment } = ledger;
  console.log("Program deployed through the BPF Upgradeable Loader");
  console.log(`  program id      ${ledger.programId}`);
  console.log(`  program data    ${deployment.programData}`);
  console.log(
    `  transactions    ${deployment.transactionCount} (buffer, writes, deploy) at slot ${deployment.deploySlot}`,
  );
  console.log(`  credential      ${ledger.credential}`);
  console.log(`  schemas         ${ledger.attestationSchema} (BehaviorAttestation)`);
  console.log(`                  ${ledger.batchSchema} (BehaviorBatch)\n`);

  // The in-process ledger's clock is whatever it is told: make it now, so the receipt reads naturally.
  setLedgerTime(ledger.svm, {
    slot: ledger.svm.getClock().slot,
    unixTimestamp: BigInt(Math.floor(Date.now() / 1000)),
  });
  const registered = await registerAgent(ledger);
  console.log("Agent registered");
  console.log(`  operator        ${registered.operator.address}`);
  console.log(`  agent           ${registered.agent.address}`);
  console.log(`  agent account   ${registered.agentAccount}\n`);

  const actionHash = hashPayload(SAMPLE_ACTION);
  const operatorBefore = balanceOf(ledger, registered.operator.address);
  const recorded = await attest(ledger, {
    ...registered,
    actionType: ActionType.ToolCall,
    storedHash: actionHash,
  });
  const paidByOperator = operatorBefore - balanceOf(ledger, registered.operator.address);
  const account = decodeAttestationAccount(readAccount(ledger, recorded.attestation).data);
  const [computeUnits] = programComputeUnits(recorded.meta, ledger.programId);
  const base58 = getBase58Decoder();

  console.log("Receipt");
  console.log(`  action          ${JSON.stringify(SAMPLE_ACTION)}`);
  console.log(`  action hash     ${bytesToHex(actionHash)}  (SHA-256 of the JSON above)`);
  console.log(`  action type     ${getActionTypeName(account.actionType)}`);
  console.log(`  attestation     ${recorded.attestation}`);
  console.log(`  agent signature ${base58.decode(account.agentSignature)}`);
  console.log(`  transaction     ${base58.decode(recorded.meta.signature())}`);
  console.log(
    `  recorded at     ${new Date(Number(account.timestamp) * 1000).toISOString()} (unix ${account.timestamp}), slot ${account.slot}`,
  );
  console.log(
    `  compute units   ${computeUnits} (attest instruction), ${recorded.meta.computeUnitsConsumed()} (transaction)`,
  );
  console.log(`  operator paid   ${paidByOperator} lamports of rent (the fee payer paid the fees)`);
}

await main();
