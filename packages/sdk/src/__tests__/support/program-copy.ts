/**
 * The ABAS program deployed again, by anyone, at an address of their own on the same ledger:
 * what an attacker does to get receipts from a program that is not the one a verifier trusts.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { buildInitializeInstruction, planUpgradeableDeploy } from "@abas/program-client";
import { createKeyPairSignerFromBytes, generateKeyPairSigner, type Address } from "@solana/kit";

import { sendAndConfirmTransaction, type SendSettings } from "../../send-transaction.js";
import { fundedSecretKey, type TestLedger } from "./local-ledger.js";

const PROGRAM_PATH = fileURLToPath(
  new URL("../../../../../program/dist/abas_attestation.so", import.meta.url),
);

/** Solana's default rent: 3,480 lamports a byte-year for two years, with 128 bytes of account overhead. */
const rentFor = (size: number): bigint => BigInt((size + 128) * 3_480 * 2);

/** Deploys and initializes a copy of the ABAS program at a new address; returns that address. */
export async function deployProgramCopy(ledger: TestLedger): Promise<Address> {
  const payer = await createKeyPairSignerFromBytes(await fundedSecretKey(ledger, 100n * 1_000_000_000n));
  const program = await generateKeyPairSigner();
  const settings: SendSettings = {
    rpc: ledger.rpc,
    programId: program.address,
    commitment: "confirmed",
    computeUnitMargin: 0.2,
    confirmationTimeoutMs: 30_000,
    maxSendAttempts: 3,
  };
  const plan = await planUpgradeableDeploy({
    payer,
    program,
    buffer: await generateKeyPairSigner(),
    programBytes: new Uint8Array(readFileSync(PROGRAM_PATH)),
    rentFor,
  });
  let deployedIn = 0n;
  for (const instructions of plan.transactions) {
    ({ slot: deployedIn } = await sendAndConfirmTransaction(settings, { feePayer: payer, instructions }));
  }
  // Executable from the slot after its deployment.
  while ((await ledger.rpc.getSlot({ commitment: "confirmed" }).send()) <= deployedIn) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const initialize = await buildInitializeInstruction({ programId: program.address, authority: payer });
  await sendAndConfirmTransaction(settings, { feePayer: payer, instructions: [initialize] });
  return program.address;
}
