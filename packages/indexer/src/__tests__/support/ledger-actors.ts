/**
 * Operators and agents acting on the test ledger: through the SDK, as users do, and through raw
 * transactions for what the SDK will not send (a batch left half published, an attestation the
 * program refuses, sent without preflight so that it lands as a failed transaction).
 */
import { randomBytes } from "node:crypto";

import {
  actionTypesMask,
  buildAttestBatchInstruction,
  buildAttestInstruction,
  buildAttestMessage,
  buildBatchMessage,
  buildEd25519VerifyInstruction,
  buildPublishBatchLeavesInstruction,
  computeBatchMerkleRoot,
  signMessageWithKeyPair,
  type ActionType,
  type LeafData,
} from "@abas/program-client";
import { AttestationClient, generateSecretKey } from "@abas/sdk";
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";

import type { TestLedger } from "./test-ledger.js";

const ONE_SOL = 1_000_000_000n;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export function randomActionHash(): string {
  return randomBytes(32).toString("hex");
}

export type Operator = Readonly<{ secretKey: Uint8Array; signer: KeyPairSigner }>;

export async function fundedOperator(ledger: TestLedger, sol = 100n): Promise<Operator> {
  const secretKey = generateSecretKey();
  const signer = await createKeyPairSignerFromBytes(secretKey);
  await ledger.rpc.requestAirdrop(signer.address, lamports(sol * ONE_SOL)).send();
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await ledger.rpc.getBalance(signer.address).send()).value > 0n) return { secretKey, signer };
    await sleep(25);
  }
  throw new Error(`the airdrop to ${signer.address} did not arrive`);
}

export type Agent = Readonly<{
  client: AttestationClient;
  signer: KeyPairSigner;
  operator: Operator;
}>;

export async function newAgent(ledger: TestLedger, operator: Operator): Promise<Agent> {
  const secretKey = generateSecretKey();
  const signer = await createKeyPairSignerFromBytes(Uint8Array.from(secretKey));
  const client = new AttestationClient({
    rpcUrl: ledger.rpcUrl,
    agentKeypair: secretKey,
    programId: ledger.programId,
  });
  return { client, signer, operator };
}

/** Sends instructions paid by `payer`, without preflight when asked, and waits until it landed (or failed). */
export async function sendInstructions(
  ledger: TestLedger,
  payer: KeyPairSigner,
  instructions: readonly Instruction[],
  { skipPreflight = false }: { skipPreflight?: boolean } = {},
): Promise<{ signature: Signature; err: unknown }> {
  const { value: latestBlockhash } = await ledger.rpc.getLatestBlockhash().send();
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latestBlockhash, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  const transaction = await signTransactionMessageWithSigners(message);
  const signature = getSignatureFromTransaction(transaction);
  await ledger.rpc
    .sendTransaction(getBase64EncodedWireTransaction(transaction), { encoding: "base64", skipPreflight })
    .send();
  for (let attempt = 0; attempt < 400; attempt++) {
    const [status] = (await ledger.rpc.getSignatureStatuses([signature]).send()).value;
    if (status) return { signature, err: status.err };
    await sleep(25);
  }
  throw new Error(`transaction ${signature} did not land`);
}

/** An `attest` that the program refuses (for instance a type the policy does not allow), landed as a failed transaction. */
export async function sendRefusedAttest(
  ledger: TestLedger,
  agent: Agent,
  actionType: ActionType,
): Promise<{ signature: Signature; err: unknown }> {
  const storedHash = Uint8Array.from(randomBytes(32));
  const message = buildAttestMessage({
    programId: ledger.programId,
    agent: agent.signer.address,
    actionType,
    privacyMode: false,
    storedHash,
  });
  const signature = await signMessageWithKeyPair(agent.signer.keyPair, message);
  const instructions = [
    buildEd25519VerifyInstruction({ publicKey: agent.signer.address, signature, message }),
    await buildAttestInstruction({
      programId: ledger.programId,
      operator: agent.operator.signer,
      agent: agent.signer.address,
      actionType,
      privacyMode: false,
      storedHash,
    }),
  ];
  return await sendInstructions(ledger, agent.operator.signer, instructions, { skipPreflight: true });
}

export type RawBatch = Readonly<{
  leaves: readonly LeafData[];
  merkleRoot: Uint8Array;
  commitSignature: Signature;
}>;

/** Commits a batch's root without publishing any leaf. */
export async function commitBatch(
  ledger: TestLedger,
  agent: Agent,
  leaves: readonly LeafData[],
): Promise<RawBatch> {
  const merkleRoot = computeBatchMerkleRoot(leaves);
  const actionTypes = actionTypesMask(leaves.map((leaf) => leaf.actionType));
  const common = {
    programId: ledger.programId,
    agent: agent.signer.address,
    itemCount: leaves.length,
    actionTypes,
    merkleRoot,
  };
  const message = buildBatchMessage(common);
  const signature = await signMessageWithKeyPair(agent.signer.keyPair, message);
  const { signature: commitSignature, err } = await sendInstructions(ledger, agent.operator.signer, [
    buildEd25519VerifyInstruction({ publicKey: agent.signer.address, signature, message }),
    await buildAttestBatchInstruction({ ...common, operator: agent.operator.signer }),
  ]);
  if (err !== null) throw new Error(`the batch commit failed: ${JSON.stringify(err)}`);
  return { leaves, merkleRoot, commitSignature };
}

/** Publishes leaves `[start, start + count)` of a committed batch. */
export async function publishLeaves(
  ledger: TestLedger,
  agent: Agent,
  batch: RawBatch,
  start: number,
  count: number,
): Promise<Signature> {
  const { signature, err } = await sendInstructions(ledger, agent.operator.signer, [
    await buildPublishBatchLeavesInstruction({
      programId: ledger.programId,
      operator: agent.operator.signer,
      agent: agent.signer.address,
      merkleRoot: batch.merkleRoot,
      startIndex: start,
      leaves: batch.leaves.slice(start, start + count),
    }),
  ]);
  if (err !== null) throw new Error(`publishing leaves failed: ${JSON.stringify(err)}`);
  return signature;
}
