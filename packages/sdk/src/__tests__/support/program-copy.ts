/**
 * The ABAS program deployed again, by anyone, at an address of their own on the same ledger:
 * what an attacker does to get receipts from a program that is not the one a verifier trusts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { buildInitializeInstruction, planUpgradeableDeploy } from "@abas/program-client";
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";

import { fundedSecretKey, type TestLedger } from "./local-ledger.js";

const PROGRAM_PATH = fileURLToPath(
  new URL("../../../../../program/dist/abas_attestation.so", import.meta.url),
);

/** Solana's default rent: 3,480 lamports a byte-year for two years, with 128 bytes of account overhead. */
const rentFor = (size: number): bigint => BigInt((size + 128) * 3_480 * 2);

async function sendAndConfirm(
  ledger: TestLedger,
  payer: TransactionSigner,
  instructions: readonly Instruction[],
) {
  const { value: blockhash } = await ledger.rpc.getLatestBlockhash({ commitment: "confirmed" }).send();
  const signed = await signTransactionMessageWithSigners(
    pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(payer, message),
      (message) => setTransactionMessageLifetimeUsingBlockhash(blockhash, message),
      (message) => appendTransactionMessageInstructions(instructions, message),
    ),
  );
  const signature = getSignatureFromTransaction(signed);
  await ledger.rpc
    .sendTransaction(getBase64EncodedWireTransaction(signed), {
      encoding: "base64",
      preflightCommitment: "confirmed",
    })
    .send();
  for (let attempt = 0; attempt < 300; attempt++) {
    const [status] = (await ledger.rpc.getSignatureStatuses([signature]).send()).value;
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") {
      if (status.err !== null) throw new Error(`${signature} failed: ${JSON.stringify(status.err)}`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${signature} was not confirmed`);
}

/** Deploys and initializes a copy of the ABAS program at a new address; returns that address. */
export async function deployProgramCopy(ledger: TestLedger): Promise<Address> {
  const payer = await createKeyPairSignerFromBytes(await fundedSecretKey(ledger, 100n * 1_000_000_000n));
  const program = await generateKeyPairSigner();
  const plan = await planUpgradeableDeploy({
    payer,
    program,
    buffer: await generateKeyPairSigner(),
    programBytes: new Uint8Array(readFileSync(PROGRAM_PATH)),
    rentFor,
  });
  for (const instructions of plan.transactions) await sendAndConfirm(ledger, payer, instructions);
  // Executable from the slot after its deployment.
  const deployedIn = await ledger.rpc.getSlot({ commitment: "confirmed" }).send();
  while ((await ledger.rpc.getSlot({ commitment: "confirmed" }).send()) <= deployedIn) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await sendAndConfirm(ledger, payer, [
    await buildInitializeInstruction({ programId: program.address, authority: payer }),
  ]);
  return program.address;
}
