/**
 * The SDK end to end: register an agent, attest one action, attest a batch, verify the receipts.
 *
 *   npm start -w @abas/ledger            # a local ledger on http://127.0.0.1:8899 (another terminal)
 *   npm run example -w @abas/sdk
 *
 * RPC_URL and PROGRAM_ID point it at another ledger and deployment (default: the local ledger's).
 */
import { AttestationClient, verifyReceipt } from "@abas/sdk";
import { exampleKeys } from "./example-keys.js";

const rpcUrl = process.env.RPC_URL ?? "http://127.0.0.1:8899";
const programId = process.env.PROGRAM_ID;

const { agentKeypair, operatorKeypair } = await exampleKeys(rpcUrl);

const client = new AttestationClient({ rpcUrl, agentKeypair, programId });
await client.registerAgent({ operatorKeypair, allowedActionTypes: ["ToolCall", "Decision"] });
console.log(`agent ${client.agentAddress} registered`);

// Canonical JSON: the same action object always gives the same hash, whatever its key order.
const action = { tool: "flights.search", arguments: { from: "LIS", to: "SFO" }, at: "2026-03-14T09:30:00Z" };
const actionHash = await AttestationClient.hashAction(AttestationClient.canonicalize(action));
const receipt = await client.attest({
  operatorKeypair,
  actionHash,
  actionType: "ToolCall",
  privacyMode: true,
});
console.log(`attested ${actionHash} at slot ${receipt.slot}: ${receipt.explorerUrl}`);

const batch = await client.batchAttest({
  operatorKeypair,
  attestations: await Promise.all(
    ["plan", "book", "confirm"].map(async (step) => ({
      actionHash: await AttestationClient.hashAction(AttestationClient.canonicalize({ step })),
      actionType: "Decision" as const,
    })),
  ),
  onProgress: ({ stage, leavesPublished, itemCount }) =>
    console.log(`  ${stage}: ${leavesPublished}/${itemCount}`),
});
console.log(`batch ${batch.batchAddress}: root ${batch.merkleRoot}, ${batch.itemCount} receipts`);

// Anyone can verify a receipt: no key needed, only the ledger.
for (const item of [receipt, ...batch.receipts]) {
  const { valid, checks } = await verifyReceipt(item, { rpcUrl, programId });
  console.log(
    `receipt ${"index" in item ? `#${item.index}` : "single"}: ${valid ? "valid" : JSON.stringify(checks)}`,
  );
}
