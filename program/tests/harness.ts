/**
 * The test ledger: a fresh LiteSVM (the real SVM: loader, runtime, system program, Ed25519
 * precompile) with the built ABAS program, a realistic clock and `initialize` already run, plus
 * helpers that arrange state through the program's own instructions.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import {
  actionTypesMask,
  buildAttestBatchInstruction,
  buildAttestInstruction,
  buildAttestMessage,
  buildBatchMessage,
  buildEd25519VerifyInstruction,
  buildInitializeInstruction,
  buildPublishBatchLeavesInstruction,
  buildRegisterAgentInstruction,
  buildUpdateAgentInstruction,
  computeLeafHash,
  computeMerkleRoot,
  deriveAgentAddress,
  deriveAttestationAddress,
  deriveBatchAddress,
  deriveIssuerAddresses,
  encodeLeafData,
  getProgramErrorFromTransactionError,
  sha256,
  signMessageWithKeyPair,
  ALL_ACTION_TYPES_MASK,
  type ActionType,
  AgentStatus,
  type LeafData,
} from "@abas/program-client";
import {
  getProgramErrorName,
  isAbasError,
  isProgramErrorCode,
  type AbasProgramErrorCode,
} from "@abas/errors";
import {
  generateKeyPairSigner,
  lamports,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type TransactionSigner,
} from "@solana/kit";
import { Clock, LiteSVM, type FeatureSet, type TransactionMetadata } from "litesvm";

import { isFailure, logsOf, submitInstructions, type SvmResult } from "./transactions.js";
import { deployWithUpgradeableLoader, type UpgradeableDeployment } from "./upgradeable-loader.js";

export { isFailure, logsOf, type SvmResult } from "./transactions.js";

export const PROGRAM_SO_PATH = fileURLToPath(new URL("../dist/abas_attestation.so", import.meta.url));

/** 2026-01-01T00:00:00Z: the ledger starts at a realistic time instead of LiteSVM's epoch 0. */
export const START_UNIX_TIMESTAMP = 1_767_225_600n;
export const START_SLOT = 390_000_000n;
const SLOTS_PER_EPOCH = 432_000n;

export const LAMPORTS_PER_SOL = 1_000_000_000n;

export function readProgramBytes(): Uint8Array {
  if (!existsSync(PROGRAM_SO_PATH)) {
    throw new Error(
      `The built program is missing at ${PROGRAM_SO_PATH}. Run \`npm run program:build\` first.`,
    );
  }
  return new Uint8Array(readFileSync(PROGRAM_SO_PATH));
}

/**
 * A LiteSVM with mainnet features (or `featureSet`), precompiles and sigverify, its clock set to
 * `START_*`.
 */
export function createSvm(featureSet?: FeatureSet): LiteSVM {
  const svm = featureSet
    ? new LiteSVM().withFeatureSet(featureSet).withBuiltins().withSysvars().withPrecompiles()
    : new LiteSVM();
  setLedgerTime(svm, { slot: START_SLOT, unixTimestamp: START_UNIX_TIMESTAMP });
  return svm;
}

export interface LedgerTime {
  readonly slot: bigint;
  readonly unixTimestamp: bigint;
}

/** Sets the Clock sysvar (with a consistent epoch) that the program reads. */
export function setLedgerTime(svm: LiteSVM, time: LedgerTime): void {
  const epoch = time.slot / SLOTS_PER_EPOCH;
  svm.setClock(new Clock(time.slot, time.unixTimestamp, epoch, epoch + 1n, time.unixTimestamp));
}

/** Moves the clock forward, as time passing between transactions would; returns the new time. */
export function advanceLedgerTime(
  ledger: { svm: LiteSVM },
  by: { seconds: bigint; slots: bigint },
): LedgerTime {
  const clock = ledger.svm.getClock();
  const time = { slot: clock.slot + by.slots, unixTimestamp: clock.unixTimestamp + by.seconds };
  setLedgerTime(ledger.svm, time);
  return time;
}

export interface TestLedger {
  readonly svm: LiteSVM;
  readonly programId: Address;
  /** Funded; pays the fees unless a test names another fee payer. */
  readonly payer: KeyPairSigner;
  readonly credential: Address;
  readonly attestationSchema: Address;
  readonly batchSchema: Address;
  /** The program's deployment through the upgradeable loader; `payer` is its upgrade authority. */
  readonly deployment: UpgradeableDeployment;
}

export interface CreateTestLedgerOptions {
  /** Run `initialize`, signed by the upgrade authority (default true). */
  readonly initialize?: boolean;
  /** Fixed keys, for runs that must be reproducible (the fuzz test); random by default. */
  readonly payer?: KeyPairSigner;
  readonly program?: KeyPairSigner;
  /** Runtime features instead of litesvm's mainnet set (e.g. with SIMD-0500 active). */
  readonly featureSet?: FeatureSet;
  /** Another build of the program instead of the committed .so (e.g. its SBPF v0 build). */
  readonly programBytes?: Uint8Array;
  /** ProgramData room for later upgrades; default: the program's size. */
  readonly maxDataLen?: bigint;
}

export async function createTestLedger(options: CreateTestLedgerOptions = {}): Promise<TestLedger> {
  const programBytes = options.programBytes ?? readProgramBytes();
  const svm = createSvm(options.featureSet);
  const payer = options.payer ?? (await generateKeyPairSigner());
  svm.airdrop(payer.address, lamports(1_000n * LAMPORTS_PER_SOL));
  const program = options.program ?? (await generateKeyPairSigner());

  // Deployed as on a cluster, so the program has an upgrade authority (the payer) for `initialize`.
  const deployment = await deployWithUpgradeableLoader(svm, payer, programBytes, {
    program,
    maxDataLen: options.maxDataLen,
  });
  const { programId } = deployment;

  const issuer = await deriveIssuerAddresses(programId);
  const ledger: TestLedger = {
    svm,
    programId,
    payer,
    credential: issuer.credential.address,
    attestationSchema: issuer.attestationSchema.address,
    batchSchema: issuer.batchSchema.address,
    deployment,
  };
  if (options.initialize ?? true) {
    expectSuccess(await send(ledger, [await buildInitializeInstruction({ programId, authority: payer })]));
  }
  return ledger;
}

// ---------------------------------------------------------------------------------------------
// Sending and asserting

export interface SendOutcome {
  readonly result: SvmResult;
  /** Signed wire size in bytes. */
  readonly size: number;
  readonly instructions: readonly Instruction[];
  /** Index of the last instruction addressed to the ABAS program (where its errors are reported). */
  readonly programInstructionIndex: number;
  readonly programId: Address;
}

export interface SendOptions {
  /** Pays the fee; the ledger's payer by default. */
  readonly feePayer?: TransactionSigner;
}

/**
 * Sends `instructions` as one v0 transaction. Signers named in account metas sign automatically;
 * `extraSigners` add signatures for accounts listed by address only.
 */
export async function send(
  ledger: TestLedger,
  instructions: readonly Instruction[],
  extraSigners: readonly TransactionSigner[] = [],
  options: SendOptions = {},
): Promise<SendOutcome> {
  const feePayer = options.feePayer ?? ledger.payer;
  const { result, size } = await submitInstructions(ledger.svm, feePayer, instructions, extraSigners);
  const programInstructionIndex = instructions.map((ix) => ix.programAddress).lastIndexOf(ledger.programId);
  return { result, size, instructions, programInstructionIndex, programId: ledger.programId };
}

function describe(result: SvmResult): string {
  return `${isFailure(result) ? result.toString() : "success"}\n  ${logsOf(result).join("\n  ")}`;
}

export function expectSuccess(outcome: SendOutcome): TransactionMetadata {
  const { result } = outcome;
  if (isFailure(result)) assert.fail(`expected the transaction to succeed, got ${describe(result)}`);
  return result;
}

export interface InstructionFailure {
  readonly instructionIndex: number;
  /** The custom program error code, or undefined for a built-in instruction error. */
  readonly code: number | undefined;
  /** The built-in instruction error (a number of litesvm's InstructionErrorFieldless) otherwise. */
  readonly builtin: unknown;
}

/** The instruction error of a failed transaction, or undefined for transaction-level errors. */
export function instructionFailureOf(result: SvmResult): InstructionFailure | undefined {
  if (!isFailure(result)) return undefined;
  const err: unknown = result.err();
  if (typeof err !== "object" || err === null || !("index" in err) || !("err" in err)) return undefined;
  const { index, err: inner } = err as { index: number; err: () => unknown };
  const instructionError = inner.call(err);
  if (typeof instructionError === "object" && instructionError !== null && "code" in instructionError) {
    return { instructionIndex: index, code: Number(instructionError.code), builtin: undefined };
  }
  return { instructionIndex: index, code: undefined, builtin: instructionError };
}

function codeName(code: number): string {
  return `${code} (${isProgramErrorCode(code) ? getProgramErrorName(code) : "not an ABAS program code"})`;
}

/** Asserts that the transaction failed with custom program error `code` at the program's instruction. */
export function expectProgramError(
  outcome: SendOutcome,
  code: AbasProgramErrorCode,
  instructionIndex: number = outcome.programInstructionIndex,
): void {
  const failure = instructionFailureOf(outcome.result);
  if (failure?.code === undefined) {
    assert.fail(`expected custom program error ${codeName(code)}, got ${describe(outcome.result)}`);
  }
  assert.equal(
    failure.code,
    code,
    `expected custom program error ${codeName(code)}, got ${codeName(failure.code)}\n${describe(outcome.result)}`,
  );
  assert.equal(failure.instructionIndex, instructionIndex, "the error comes from the expected instruction");
  // The SDK names the same error from the same failure.
  const named = getProgramErrorFromTransactionError(outcome.result);
  assert.ok(isAbasError(named, code), `the SDK names the failure as ${codeName(code)}`);
}

const CONSUMED = /^Program (\w+) consumed (\d+) of (\d+) compute units$/;

/** Compute units that `programId`'s top-level invocations consumed, from the runtime's log lines. */
export function programComputeUnits(result: SvmResult, programId: Address): bigint[] {
  return logsOf(result)
    .map((line) => CONSUMED.exec(line))
    .filter((match): match is RegExpExecArray => match !== null && match[1] === programId)
    .map((match) => BigInt(match[2]!));
}

// ---------------------------------------------------------------------------------------------
// Accounts

export interface AccountSnapshot {
  readonly address: Address;
  readonly owner: Address;
  readonly lamports: bigint;
  readonly data: Uint8Array;
}

/** The account at `address`, or undefined when it does not exist. */
export function getAccount(ledger: TestLedger, address: Address): AccountSnapshot | undefined {
  const account = ledger.svm.getAccount(address);
  if (!account.exists) return undefined;
  return {
    address,
    owner: account.programAddress,
    lamports: account.lamports,
    data: Uint8Array.from(account.data),
  };
}

/** The account at `address`, asserting that it exists. */
export function readAccount(ledger: TestLedger, address: Address): AccountSnapshot {
  const account = getAccount(ledger, address);
  assert.ok(account, `expected an account at ${address}`);
  return account;
}

export function balanceOf(ledger: TestLedger, address: Address): bigint {
  return ledger.svm.getBalance(address) ?? 0n;
}

/** Copies an account to `address` with other fields replaced: for foreign-owned or forged accounts. */
export function setAccount(
  ledger: TestLedger,
  input: { address: Address; owner: Address; data: Uint8Array; lamports?: bigint },
): void {
  ledger.svm.setAccount({
    address: input.address,
    programAddress: input.owner,
    data: input.data,
    lamports: lamports(
      input.lamports ?? ledger.svm.minimumBalanceForRentExemption(BigInt(input.data.length)),
    ),
    executable: false,
    space: BigInt(input.data.length),
  });
}

// ---------------------------------------------------------------------------------------------
// Participants and arranged state

export async function createFundedSigner(ledger: TestLedger, sol = 100n): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  ledger.svm.airdrop(signer.address, lamports(sol * LAMPORTS_PER_SOL));
  return signer;
}

/** An operator: a funded key that pays for agent and attestation accounts. */
export const createOperator = createFundedSigner;

/** An agent key: signs its registration and its receipts, holds no lamports. */
export async function createAgent(): Promise<KeyPairSigner> {
  return await generateKeyPairSigner();
}

export function randomHash(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(32));
}

/** The action hash of a JSON payload, as the SDK computes it. */
export function hashPayload(payload: unknown): Uint8Array {
  return sha256(new TextEncoder().encode(JSON.stringify(payload)));
}

export interface RegisteredAgent {
  readonly operator: KeyPairSigner;
  readonly agent: KeyPairSigner;
  readonly agentAccount: Address;
  readonly agentBump: number;
}

export async function registerAgent(
  ledger: TestLedger,
  input: { operator?: KeyPairSigner; agent?: KeyPairSigner; allowedActionTypes?: number } = {},
): Promise<RegisteredAgent> {
  const operator = input.operator ?? (await createOperator(ledger));
  const agent = input.agent ?? (await createAgent());
  const instruction = await buildRegisterAgentInstruction({
    programId: ledger.programId,
    operator,
    agent,
    allowedActionTypes: input.allowedActionTypes ?? ALL_ACTION_TYPES_MASK,
  });
  expectSuccess(await send(ledger, [instruction]));
  const { address, bump } = await deriveAgentAddress(ledger.programId, agent.address);
  return { operator, agent, agentAccount: address, agentBump: bump };
}

export type AgentUpdate = { status: AgentStatus; allowedActionTypes?: number };

/**
 * Changes of an agent after which the program refuses a new ToolCall, ModelInvocation or
 * Decision: such a record sent again after one of them must still be answered as a duplicate.
 */
export const REFUSING_UPDATES: readonly (readonly [change: string, update: AgentUpdate])[] = [
  ["the agent was suspended", { status: AgentStatus.Suspended }],
  ["the agent was revoked", { status: AgentStatus.Revoked }],
  ["the policy allows only Transaction", { status: AgentStatus.Active, allowedActionTypes: 0b1000 }],
];

export async function updateAgent(
  ledger: TestLedger,
  registered: RegisteredAgent,
  input: AgentUpdate,
): Promise<void> {
  const instruction = await buildUpdateAgentInstruction({
    programId: ledger.programId,
    operator: registered.operator,
    agent: registered.agent.address,
    status: input.status,
    allowedActionTypes: input.allowedActionTypes ?? ALL_ACTION_TYPES_MASK,
  });
  expectSuccess(await send(ledger, [instruction]));
}

export interface AttestInput {
  readonly operator: KeyPairSigner;
  readonly agent: KeyPairSigner;
  readonly actionType?: ActionType;
  readonly privacyMode?: boolean;
  readonly storedHash?: Uint8Array;
}

export interface SignedAttest {
  /** The Ed25519 precompile instruction, then `attest`. */
  readonly instructions: [Instruction, Instruction];
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
  readonly attestation: Address;
  readonly attestationBump: number;
  readonly actionType: ActionType;
  readonly privacyMode: boolean;
  readonly storedHash: Uint8Array;
}

/** The agent signs the attest message; returns the precompile and attest instructions. */
export async function buildSignedAttest(ledger: TestLedger, input: AttestInput): Promise<SignedAttest> {
  const actionType = input.actionType ?? 1;
  const privacyMode = input.privacyMode ?? false;
  const storedHash = input.storedHash ?? randomHash();
  const { programId } = ledger;
  const agent = input.agent.address;
  const message = buildAttestMessage({ programId, agent, actionType, privacyMode, storedHash });
  const signature = await signMessageWithKeyPair(input.agent.keyPair, message);
  const attest = await buildAttestInstruction({
    programId,
    operator: input.operator,
    agent,
    actionType,
    privacyMode,
    storedHash,
  });
  const { address, bump } = await deriveAttestationAddress(programId, agent, storedHash);
  return {
    instructions: [buildEd25519VerifyInstruction({ publicKey: agent, message, signature }), attest],
    message,
    signature,
    attestation: address,
    attestationBump: bump,
    actionType,
    privacyMode,
    storedHash,
  };
}

export async function attest(
  ledger: TestLedger,
  input: AttestInput,
): Promise<SignedAttest & { readonly meta: TransactionMetadata; readonly outcome: SendOutcome }> {
  const signed = await buildSignedAttest(ledger, input);
  const outcome = await send(ledger, signed.instructions);
  return { ...signed, meta: expectSuccess(outcome), outcome };
}

/** `count` leaves with random hashes, action types cycling through `actionTypes`, privacy alternating. */
export function randomLeaves(count: number, actionTypes: readonly ActionType[] = [0, 1, 2, 3]): LeafData[] {
  return Array.from({ length: count }, (_, i) => ({
    actionType: actionTypes[i % actionTypes.length]!,
    privacyMode: i % 3 === 2,
    storedHash: randomHash(),
  }));
}

/** The leaves' 34-byte records, concatenated as `publish_batch_leaves` carries them. */
export function encodeLeaves(leaves: readonly LeafData[]): Uint8Array {
  return Uint8Array.from(leaves.flatMap((leaf) => [...encodeLeafData(leaf)]));
}

export interface AttestBatchInput {
  readonly operator: KeyPairSigner;
  readonly agent: KeyPairSigner;
  readonly leaves: readonly LeafData[];
  /** The batch's action type mask; by default the mask of the leaves' types. */
  readonly actionTypes?: number;
  /** The item count the agent signs; by default the number of leaves. */
  readonly itemCount?: number;
}

export interface SignedBatch {
  readonly instructions: [Instruction, Instruction];
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
  readonly batch: Address;
  readonly batchBump: number;
  readonly leaves: readonly LeafData[];
  readonly leafHashes: readonly Uint8Array[];
  readonly merkleRoot: Uint8Array;
  readonly itemCount: number;
  readonly actionTypes: number;
}

export async function buildSignedBatch(ledger: TestLedger, input: AttestBatchInput): Promise<SignedBatch> {
  const { programId } = ledger;
  const agent = input.agent.address;
  const leafHashes = input.leaves.map(computeLeafHash);
  const merkleRoot = computeMerkleRoot(leafHashes);
  const itemCount = input.itemCount ?? input.leaves.length;
  const actionTypes = input.actionTypes ?? actionTypesMask(input.leaves.map((leaf) => leaf.actionType));
  const message = buildBatchMessage({ programId, agent, itemCount, actionTypes, merkleRoot });
  const signature = await signMessageWithKeyPair(input.agent.keyPair, message);
  const attestBatch = await buildAttestBatchInstruction({
    programId,
    operator: input.operator,
    agent,
    itemCount,
    actionTypes,
    merkleRoot,
  });
  const { address, bump } = await deriveBatchAddress(programId, agent, merkleRoot);
  return {
    instructions: [buildEd25519VerifyInstruction({ publicKey: agent, message, signature }), attestBatch],
    message,
    signature,
    batch: address,
    batchBump: bump,
    leaves: input.leaves,
    leafHashes,
    merkleRoot,
    itemCount,
    actionTypes,
  };
}

export async function attestBatch(
  ledger: TestLedger,
  input: AttestBatchInput,
): Promise<SignedBatch & { readonly meta: TransactionMetadata; readonly outcome: SendOutcome }> {
  const signed = await buildSignedBatch(ledger, input);
  const outcome = await send(ledger, signed.instructions);
  return { ...signed, meta: expectSuccess(outcome), outcome };
}

export interface PublishLeavesInput {
  readonly operator: KeyPairSigner;
  /** The agent whose agent account is passed. */
  readonly agent: Address;
  readonly merkleRoot: Uint8Array;
  readonly startIndex: number;
  readonly leaves: readonly LeafData[];
}

export async function buildPublishLeaves(
  ledger: TestLedger,
  input: PublishLeavesInput,
): Promise<Instruction> {
  return await buildPublishBatchLeavesInstruction({ programId: ledger.programId, ...input });
}

/** Sends one `publish_batch_leaves` chunk, paid by the operator as the SDK does; returns the outcome. */
export async function publishLeaves(ledger: TestLedger, input: PublishLeavesInput): Promise<SendOutcome> {
  return await send(ledger, [await buildPublishLeaves(ledger, input)], [], { feePayer: input.operator });
}

/** Leaves per `publish_batch_leaves` transaction paid by the operator: the most under 1,232 bytes. */
export const LEAVES_PER_CHUNK = 29;

/** Publishes every leaf of a batch in chunks, asserting each chunk succeeds. */
export async function publishAllLeaves(
  ledger: TestLedger,
  input: { operator: KeyPairSigner; agent: Address; batch: SignedBatch; chunkSize?: number },
): Promise<SendOutcome[]> {
  const chunkSize = input.chunkSize ?? LEAVES_PER_CHUNK;
  const outcomes: SendOutcome[] = [];
  for (let start = 0; start < input.batch.leaves.length; start += chunkSize) {
    const outcome = await publishLeaves(ledger, {
      operator: input.operator,
      agent: input.agent,
      merkleRoot: input.batch.merkleRoot,
      startIndex: start,
      leaves: input.batch.leaves.slice(start, start + chunkSize),
    });
    expectSuccess(outcome);
    outcomes.push(outcome);
  }
  return outcomes;
}

/** Replaces account meta `index` of an instruction, keeping everything else. */
export function withAccount(
  instruction: Instruction,
  index: number,
  replacement: NonNullable<Instruction["accounts"]>[number],
): Instruction {
  const accounts = [...(instruction.accounts ?? [])];
  assert.ok(index < accounts.length, `instruction has no account ${index}`);
  accounts[index] = replacement;
  return { ...instruction, accounts };
}

/** Replaces the data of an instruction. */
export function withData(instruction: Instruction, data: Uint8Array): Instruction {
  return { ...instruction, data };
}
