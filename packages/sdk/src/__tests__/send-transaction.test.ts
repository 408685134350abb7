import assert from "node:assert/strict";
import { before, describe, it } from "node:test";

import {
  ABAS_PROGRAM__AGENT_SUSPENDED,
  ABAS_RUNTIME__BLOCK_HEIGHT_EXCEEDED,
  ABAS_RUNTIME__BLOCKHASH_NOT_FOUND,
  ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT,
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_RUNTIME__TRANSACTION_CONFIRMATION_TIMEOUT,
  isAbasError,
  type AbasError,
  type AbasErrorCode,
} from "@abas/errors";
import { ED25519_PROGRAM_ADDRESS } from "@abas/program-client";
import {
  createKeyPairSignerFromBytes,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSolanaErrorFromTransactionError,
  getTransactionDecoder,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SolanaError,
  type Instruction,
  type KeyPairSigner,
  type ReadonlyUint8Array,
} from "@solana/kit";

import { LOCAL_PROGRAM_ID } from "../client-config.js";
import { sendAndConfirmTransaction, type SendSettings } from "../send-transaction.js";
import { TransactionFailure } from "../transaction-errors.js";
import { callsOf, createFakeRpc } from "./support/fake-rpc.js";
import { generateSecretKey } from "../keypair.js";

const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const PROGRAM_INSTRUCTION: Instruction = { programAddress: LOCAL_PROGRAM_ID, data: Uint8Array.of(3, 1, 0) };
const ED25519_INSTRUCTION: Instruction = {
  programAddress: ED25519_PROGRAM_ADDRESS,
  data: new Uint8Array(16),
};

let feePayer: KeyPairSigner;
let blockhashesServed = 0;

/** A fresh blockhash each time, valid until block height 100. */
function latestBlockhash() {
  blockhashesServed++;
  const blockhash = `${"1".repeat(31)}${"23456789"[blockhashesServed % 8]}`;
  return { context: { slot: 1n }, value: { blockhash, lastValidBlockHeight: 100n } };
}

const simulationSuccess = (unitsConsumed: bigint) => () => ({
  context: { slot: 1n },
  value: { err: null, logs: [], unitsConsumed },
});
const simulationFailure =
  (err: unknown, logs: string[] = []) =>
  () => ({
    context: { slot: 1n },
    value: { err, logs, unitsConsumed: 5_000n },
  });
const landed =
  (confirmationStatus = "confirmed") =>
  () => ({
    context: { slot: 10n },
    value: [{ slot: 42n, confirmations: 0n, err: null, confirmationStatus }],
  });
const notSeen = () => ({ context: { slot: 10n }, value: [null] });

function settingsFor(rpc: SendSettings["rpc"], overrides: Partial<SendSettings> = {}): SendSettings {
  return {
    rpc,
    programId: LOCAL_PROGRAM_ID,
    commitment: "confirmed",
    computeUnitMargin: 0.2,
    confirmationTimeoutMs: 5_000,
    maxSendAttempts: 3,
    pollIntervalMs: 1,
    ...overrides,
  };
}

function isCode(code: AbasErrorCode) {
  return (error: unknown): error is AbasError => {
    assert.ok(isAbasError(error, code), `expected AbasError ${code}, got ${String(error)}`);
    return true;
  };
}

/** The compute-budget instructions of a base64 wire transaction: [instruction byte, value]. */
function computeBudgetOf(wireTransaction: string): [number, bigint][] {
  const { messageBytes } = getTransactionDecoder().decode(getBase64Encoder().encode(wireTransaction));
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes) as unknown as {
    staticAccounts: string[];
    instructions: { programAddressIndex: number; data?: ReadonlyUint8Array }[];
  };
  return message.instructions
    .filter(
      (instruction) => message.staticAccounts[instruction.programAddressIndex] === COMPUTE_BUDGET_PROGRAM,
    )
    .map((instruction) => {
      const data = instruction.data!;
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      return [data[0]!, data[0] === 2 ? BigInt(view.getUint32(1, true)) : view.getBigUint64(1, true)];
    });
}

describe("sendAndConfirmTransaction", () => {
  before(async () => {
    feePayer = await createKeyPairSignerFromBytes(generateSecretKey());
  });

  it("sets the compute-unit limit to the simulated units plus the margin, and the priority fee", async () => {
    // Given a node whose simulation consumes 10 000 units
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(10_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: landed(),
    });
    // When a transaction is sent with a 20 % margin and a priority fee
    const sent = await sendAndConfirmTransaction(settingsFor(rpc, { priorityFeeMicroLamports: 5_000n }), {
      feePayer,
      instructions: [PROGRAM_INSTRUCTION],
    });
    // Then it was simulated at the maximum limit and sent with 12 000 units at 5 000 micro-lamports
    assert.equal(sent.simulatedComputeUnits, 10_000);
    assert.equal(sent.computeUnitLimit, 12_000);
    assert.equal(sent.slot, 42n);
    assert.equal(sent.attempts, 1);
    const [simulation] = callsOf(calls, "simulateTransaction");
    assert.deepEqual(computeBudgetOf(simulation!.params[0] as string), [
      [2, 1_400_000n],
      [3, 5_000n],
    ]);
    assert.deepEqual((simulation!.params[1] as { sigVerify: boolean }).sigVerify, false);
    const [send] = callsOf(calls, "sendTransaction");
    assert.deepEqual(computeBudgetOf(send!.params[0] as string), [
      [2, 12_000n],
      [3, 5_000n],
    ]);
  });

  it("adds no priority fee instruction when none is configured", async () => {
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: landed(),
    });
    await sendAndConfirmTransaction(settingsFor(rpc), { feePayer, instructions: [PROGRAM_INSTRUCTION] });
    assert.deepEqual(computeBudgetOf(callsOf(calls, "sendTransaction")[0]!.params[0] as string), [
      [2, 1_200n],
    ]);
  });

  it("names a program error found in simulation, with the logs as its cause, and sends nothing", async () => {
    // Given a simulation in which instruction 1 (ours, after SetComputeUnitLimit) fails with 1202
    const logs = ["Program log: abas: agent suspended"];
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationFailure({ InstructionError: [1n, { Custom: 1202n }] }, logs),
    });
    // Then the error is the named program error
    await assert.rejects(
      () => sendAndConfirmTransaction(settingsFor(rpc), { feePayer, instructions: [PROGRAM_INSTRUCTION] }),
      (error: unknown) => {
        assert.ok(isAbasError(error, ABAS_PROGRAM__AGENT_SUSPENDED));
        assert.equal(error.context.instructionIndex, 1);
        assert.ok(error.cause instanceof TransactionFailure);
        assert.deepEqual(error.cause.logs, logs);
        assert.equal(error.cause.stage, "simulation");
        return true;
      },
    );
    assert.equal(callsOf(calls, "sendTransaction").length, 0);
  });

  it("names runtime failures: an unfunded fee payer, rent it cannot pay, a bad agent signature", async () => {
    const cases: [transactionError: unknown, code: AbasErrorCode][] = [
      ["AccountNotFound", ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE],
      ["InsufficientFundsForFee", ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE],
      // the system program's custom error 1, raised inside our program's instruction (#2)
      [{ InstructionError: [2n, { Custom: 1n }] }, ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_NEW_ACCOUNT],
      // any custom error of the Ed25519 precompile's instruction (#1)
      [{ InstructionError: [1n, { Custom: 2n }] }, ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED],
    ];
    for (const [transactionError, code] of cases) {
      const { rpc } = createFakeRpc({
        getLatestBlockhash: latestBlockhash,
        simulateTransaction: simulationFailure(transactionError),
      });
      await assert.rejects(
        () =>
          sendAndConfirmTransaction(settingsFor(rpc), {
            feePayer,
            instructions: [ED25519_INSTRUCTION, PROGRAM_INSTRUCTION],
          }),
        isCode(code),
      );
    }
  });

  it("sends again with a fresh blockhash when the node refuses an unknown one in preflight", async () => {
    // Given a node that refuses the first send for its blockhash
    let sends = 0;
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => {
        if (sends++ === 0) {
          throw new SolanaError(SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, {
            cause: getSolanaErrorFromTransactionError("BlockhashNotFound"),
          } as never);
        }
        return "signature";
      },
      getSignatureStatuses: landed(),
    });
    // When the transaction is sent, Then the second attempt lands
    const sent = await sendAndConfirmTransaction(settingsFor(rpc), {
      feePayer,
      instructions: [PROGRAM_INSTRUCTION],
    });
    assert.equal(sent.attempts, 2);
    assert.equal(callsOf(calls, "getLatestBlockhash").length, 2);
    const [first, second] = callsOf(calls, "sendTransaction");
    assert.notEqual(first!.params[0], second!.params[0]);
  });

  it("names the refused blockhash when every attempt is refused", async () => {
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => {
        throw new SolanaError(SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, {
          cause: getSolanaErrorFromTransactionError("BlockhashNotFound"),
        } as never);
      },
    });
    await assert.rejects(
      () => sendAndConfirmTransaction(settingsFor(rpc), { feePayer, instructions: [PROGRAM_INSTRUCTION] }),
      isCode(ABAS_RUNTIME__BLOCKHASH_NOT_FOUND),
    );
    assert.equal(callsOf(calls, "sendTransaction").length, 3);
  });

  it("sends again when the blockhash expires before the transaction is seen", async () => {
    // Given a first transaction the node never sees, past its last valid block height
    let statusPolls = 0;
    const { rpc } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: () => (statusPolls++ === 0 ? notSeen() : landed()()),
      getBlockHeight: () => 101n,
    });
    const sent = await sendAndConfirmTransaction(settingsFor(rpc), {
      feePayer,
      instructions: [PROGRAM_INSTRUCTION],
    });
    // Then the first poll saw nothing and expired it; the resent transaction landed
    assert.equal(sent.attempts, 2);
  });

  it("gives up after maxSendAttempts expired blockhashes", async () => {
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: notSeen,
      getBlockHeight: () => 101n,
    });
    await assert.rejects(
      () =>
        sendAndConfirmTransaction(settingsFor(rpc, { maxSendAttempts: 2 }), {
          feePayer,
          instructions: [PROGRAM_INSTRUCTION],
        }),
      (error: unknown) =>
        isCode(ABAS_RUNTIME__BLOCK_HEIGHT_EXCEEDED)(error) && error.message.includes("2 times"),
    );
    assert.equal(callsOf(calls, "sendTransaction").length, 2);
  });

  it("times out when the transaction is neither seen nor expired", async () => {
    const { rpc } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: notSeen,
      getBlockHeight: () => 50n,
    });
    await assert.rejects(
      () =>
        sendAndConfirmTransaction(settingsFor(rpc, { confirmationTimeoutMs: 30 }), {
          feePayer,
          instructions: [PROGRAM_INSTRUCTION],
        }),
      isCode(ABAS_RUNTIME__TRANSACTION_CONFIRMATION_TIMEOUT),
    );
  });

  it("waits for the configured commitment", async () => {
    // Given a transaction processed first, then confirmed
    let statusPolls = 0;
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: () => landed(statusPolls++ === 0 ? "processed" : "confirmed")(),
    });
    await sendAndConfirmTransaction(settingsFor(rpc), { feePayer, instructions: [PROGRAM_INSTRUCTION] });
    assert.equal(callsOf(calls, "getSignatureStatuses").length, 2);
  });

  it("names the program error of a transaction that landed and failed", async () => {
    const { rpc } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: () => ({
        context: { slot: 10n },
        value: [
          {
            slot: 42n,
            confirmations: 0n,
            err: { InstructionError: [1n, { Custom: 1202n }] },
            confirmationStatus: "confirmed",
          },
        ],
      }),
      getTransaction: () => ({ meta: { logMessages: ["Program log: abas: agent suspended"] } }),
    });
    await assert.rejects(
      () => sendAndConfirmTransaction(settingsFor(rpc), { feePayer, instructions: [PROGRAM_INSTRUCTION] }),
      (error: unknown) =>
        isCode(ABAS_PROGRAM__AGENT_SUSPENDED)(error) &&
        error.cause instanceof TransactionFailure &&
        error.cause.stage === "confirmation" &&
        error.cause.logs.length === 1,
    );
  });

  it("names an RPC request that fails", async () => {
    const { rpc } = createFakeRpc({
      getLatestBlockhash: () => {
        throw new TypeError("fetch failed");
      },
    });
    await assert.rejects(
      () => sendAndConfirmTransaction(settingsFor(rpc), { feePayer, instructions: [PROGRAM_INSTRUCTION] }),
      (error: unknown) =>
        isAbasError(error, ABAS_RUNTIME__RPC_REQUEST_FAILED) && error.context.method === "getLatestBlockhash",
    );
  });
});
