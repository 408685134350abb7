/**
 * Runs the ABAS program's `initialize` instruction once after a deployment (devnet, say): it
 * creates the Credential and the two Schemas every attestation refers to. See docs/devnet.md.
 *
 *   RPC_URL=https://api.devnet.solana.com PROGRAM_ID=<program address> \
 *   UPGRADE_AUTHORITY_KEYPAIR=~/.config/solana/id.json npx tsx examples/initialize-program.ts
 *
 * Only the program's upgrade authority may run it (and it pays); a second run finds the Credential
 * and stops.
 * The local ledger of `npm start` deploys and initializes the program by itself.
 */
import { buildInitializeInstruction, deriveIssuerAddresses } from "@abas/program-client";
import { loadKeypair } from "@abas/sdk";
import {
  address,
  appendTransactionMessageInstruction,
  createSolanaRpc,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";

const rpcUrl = process.env.RPC_URL;
const programIdText = process.env.PROGRAM_ID;
const authoritySource = process.env.UPGRADE_AUTHORITY_KEYPAIR || "~/.config/solana/id.json";

async function main(): Promise<number> {
  if (!rpcUrl || !programIdText) {
    console.error(
      "usage: RPC_URL=<rpc url> PROGRAM_ID=<program address> [UPGRADE_AUTHORITY_KEYPAIR=<key file>] npx tsx examples/initialize-program.ts",
    );
    return 2;
  }
  const programId = address(programIdText);
  const authority = await loadKeypair(authoritySource);
  const rpc = createSolanaRpc(rpcUrl);

  const program = await rpc.getAccountInfo(programId, { encoding: "base64" }).send();
  if (program.value === null || !program.value.executable) {
    console.error(`no executable program at ${programId} on ${rpcUrl}: deploy it first (docs/devnet.md)`);
    return 1;
  }
  const { credential, attestationSchema, batchSchema } = await deriveIssuerAddresses(programId);
  const existing = await rpc.getAccountInfo(credential.address, { encoding: "base64" }).send();
  if (existing.value !== null) {
    console.log(`already initialized: Credential ${credential.address} exists`);
    return 0;
  }

  const instruction = await buildInitializeInstruction({ programId, authority });
  const { value: latestBlockhash } = await rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(authority, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latestBlockhash, m),
    (m) => appendTransactionMessageInstruction(instruction, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  const signature = getSignatureFromTransaction(transaction);
  try {
    await rpc
      .sendTransaction(getBase64EncodedWireTransaction(transaction), {
        encoding: "base64",
        preflightCommitment: "confirmed",
      })
      .send();
  } catch (error) {
    // A refused simulation carries the program's logs: show them, they name the error.
    const logs = (error as { context?: { logs?: readonly string[] } }).context?.logs ?? [];
    console.error(`initialize refused: ${error instanceof Error ? error.message : String(error)}`);
    for (const line of logs) console.error(`  ${line}`);
    if (logs.length === 0) console.error(`  is the authority ${authority.address} funded? (solana balance)`);
    return 1;
  }
  console.log(`sent initialize: ${signature}`);

  const deadline = Date.now() + 60_000;
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([signature]).send();
    const status = value[0];
    if (status?.err) {
      console.error(
        `initialize failed: ${JSON.stringify(status.err, (_k, v: unknown) => (typeof v === "bigint" ? Number(v) : v))}`,
      );
      return 1;
    }
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") break;
    if (Date.now() > deadline) {
      console.error(`initialize ${signature} not confirmed within 60 s; run again to check`);
      return 1;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  console.log(`initialized program ${programId}:`);
  console.log(`  Credential                   ${credential.address}`);
  console.log(`  Schema BehaviorAttestation   ${attestationSchema.address}`);
  console.log(`  Schema BehaviorBatch         ${batchSchema.address}`);
  return 0;
}

main().then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`initialize-program: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
