/**
 * Genesis of a new ledger: the ABAS program is deployed at its fixed local address through the
 * BPF Upgradeable Loader's own instructions (buffer, InitializeBuffer, Write in chunks,
 * DeployWithMaxDataLen), exactly as `solana program deploy` does, with the faucet as fee payer
 * and upgrade authority; then the program's `initialize` creates its Credential and Schemas.
 * Deployment lands in slot 0 and `initialize` in slot 1, since a program deployed in slot N
 * runs from slot N+1.
 */
import { buildInitializeInstruction, planUpgradeableDeploy } from "@abas/program-client";
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
} from "@solana/kit";

import type { KeypairFile } from "./keypair-file.js";

/** 500 million SOL, as a test validator's faucet holds. */
export const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;

export const DEPLOY_SLOT = 0n;
export const INITIALIZE_SLOT = 1n;

/** What genesis needs from the ledger: a slot's blockhash, and running a transaction in a slot. */
export interface GenesisTarget {
  blockhashOf(slot: bigint): string;
  rentExemptMinimum(size: number): bigint;
  /** Executes and records the transaction; throws when it does not succeed. */
  executeGenesisTransaction(bytes: Uint8Array, slot: bigint, description: string): void;
}

export interface GenesisResult {
  readonly programId: Address;
  readonly programData: Address;
  readonly transactionCount: number;
}

export async function runGenesis(
  target: GenesisTarget,
  input: { programBytes: Uint8Array; programKeypair: KeypairFile; faucetKeypair: KeypairFile },
): Promise<GenesisResult> {
  const faucet = await createKeyPairSignerFromBytes(input.faucetKeypair.bytes);
  const program = await createKeyPairSignerFromBytes(input.programKeypair.bytes);
  const buffer = await generateKeyPairSigner();

  const send = async (
    instructions: readonly Instruction[],
    slot: bigint,
    description: string,
  ): Promise<void> => {
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(faucet, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: target.blockhashOf(slot) as Blockhash, lastValidBlockHeight: slot + 150n },
          m,
        ),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signed = await signTransactionMessageWithSigners(message);
    target.executeGenesisTransaction(
      new Uint8Array(getTransactionEncoder().encode(signed)),
      slot,
      description,
    );
  };

  const plan = await planUpgradeableDeploy({
    payer: faucet,
    program,
    buffer,
    programBytes: input.programBytes,
    rentFor: (size) => target.rentExemptMinimum(size),
  });
  for (const [index, instructions] of plan.transactions.entries()) {
    await send(instructions, DEPLOY_SLOT, `deploy step ${index + 1} of ${plan.transactions.length}`);
  }
  await send(
    [await buildInitializeInstruction({ programId: program.address, authority: faucet })],
    INITIALIZE_SLOT,
    "initialize",
  );
  return {
    programId: program.address,
    programData: plan.programData,
    transactionCount: plan.transactions.length + 1,
  };
}
