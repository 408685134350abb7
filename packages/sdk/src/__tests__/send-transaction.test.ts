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
import { sendAndConfirmTransaction, withSharedBlockhash, type SendSettings } from "../send-transaction.js";
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
/** A preflight refusal with the given transaction error, as kit's RPC throws it. */
const refusedInPreflight = (transactionError: Parameters<typeof getSolanaErrorFromTransactionError>[0]) =>
  new SolanaError(SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, {
    cause: getSolanaErrorFromTransactionError(transactionError),
  } as never);

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
        if (sends++ === 0) throw refusedInPreflight("BlockhashNotFound");
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

  it("sizes a transaction of a shape already measured from it, without simulating it", async () => {
    // Given a node whose simulation consumes 10 000 units, and settings that remember shapes
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(10_000n),
      sendTransaction: () => "signature",
      getSignatureStatuses: landed(),
    });
    const settings = settingsFor(rpc, { knownComputeUnits: new Map() });
    const transaction = { feePayer, instructions: [PROGRAM_INSTRUCTION], computeUnitsKey: "shape" };
    // When two transactions of one shape are sent
    await sendAndConfirmTransaction(settings, transaction);
    const second = await sendAndConfirmTransaction(settings, transaction);
    // Then only the first was simulated, and the second was sent with the limit the first measured
    assert.equal(callsOf(calls, "simulateTransaction").length, 1);
    assert.equal(second.simulatedComputeUnits, 10_000);
    assert.deepEqual(computeBudgetOf(callsOf(calls, "sendTransaction")[1]!.params[0] as string), [
      [2, 12_000n],
    ]);
  });

  it("measures a transaction sized from its shape again when the node refuses it for its budget", async () => {
    // Given a shape remembered at 1 000 units, and a node that refuses the send for its budget
    let sends = 0;
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(5_000n),
      sendTransaction: () => {
        if (sends++ === 0) throw refusedInPreflight({ InstructionError: [1, "ComputationalBudgetExceeded"] });
        return "signature";
      },
      getSignatureStatuses: landed(),
    });
    const knownComputeUnits = new Map([["shape", 1_000]]);
    // When a transaction of that shape is sent
    const sent = await sendAndConfirmTransaction(settingsFor(rpc, { knownComputeUnits }), {
      feePayer,
      instructions: [PROGRAM_INSTRUCTION],
      computeUnitsKey: "shape",
    });
    // Then it was simulated and sent again with the units measured, which the shape now keeps
    assert.equal(sent.attempts, 1);
    assert.equal(callsOf(calls, "simulateTransaction").length, 1);
    assert.deepEqual(computeBudgetOf(callsOf(calls, "sendTransaction")[1]!.params[0] as string), [
      [2, 6_000n],
    ]);
    assert.equal(knownComputeUnits.get("shape"), 5_000);
  });

  it("names a transaction sized from its shape that the node refuses for anything but its budget, without simulating it", async () => {
    // Given a shape already measured, and a node on which the transaction fails with 1202, then
    // one whose send request fails
    const refusals: Array<[() => Error, (error: unknown) => boolean]> = [
      [
        () => refusedInPreflight({ InstructionError: [1, { Custom: 1202 }] }),
        isCode(ABAS_PROGRAM__AGENT_SUSPENDED),
      ],
      [
        () => new Error("socket hang up"),
        (error) =>
          isAbasError(error, ABAS_RUNTIME__RPC_REQUEST_FAILED) && error.context.method === "sendTransaction",
      ],
    ];
    for (const [refusal, named] of refusals) {
      const { rpc, calls } = createFakeRpc({
        getLatestBlockhash: latestBlockhash,
        sendTransaction: () => {
          throw refusal();
        },
      });
      // Then the error is the one the send met, named, and nothing was simulated or sent again
      await assert.rejects(
        () =>
          sendAndConfirmTransaction(settingsFor(rpc, { knownComputeUnits: new Map([["shape", 1_000]]) }), {
            feePayer,
            instructions: [PROGRAM_INSTRUCTION],
            computeUnitsKey: "shape",
          }),
        named,
      );
      assert.equal(callsOf(calls, "sendTransaction").length, 1);
    }
  });

  it("shares one blockhash among the transactions of one operation, and a new one once the node refuses it", async () => {
    // Given a node that refuses the third transaction's first send for its blockhash
    let sends = 0;
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => {
        if (++sends === 3) throw refusedInPreflight("BlockhashNotFound");
        return "signature";
      },
      getSignatureStatuses: landed(),
    });
    const settings = withSharedBlockhash(settingsFor(rpc));
    // When four transactions of one operation are sent
    for (let index = 0; index < 4; index++) {
      await sendAndConfirmTransaction(settings, {
        feePayer,
        instructions: [{ ...PROGRAM_INSTRUCTION, data: Uint8Array.of(3, index, 0) }],
      });
    }
    // Then the first two shared a blockhash, and the third's second send and the fourth a new one
    assert.equal(callsOf(calls, "getLatestBlockhash").length, 2);
    const blockhashOf = (call: { params: readonly unknown[] }): string => {
      const { messageBytes } = getTransactionDecoder().decode(
        getBase64Encoder().encode(call.params[0] as string),
      );
      return (getCompiledTransactionMessageDecoder().decode(messageBytes) as { lifetimeToken: string })
        .lifetimeToken;
    };
    const blockhashes = callsOf(calls, "sendTransaction").map(blockhashOf);
    assert.equal(blockhashes.length, 5);
    assert.equal(blockhashes[0], blockhashes[1]);
    assert.equal(blockhashes[1], blockhashes[2]);
    assert.notEqual(blockhashes[2], blockhashes[3]);
    assert.equal(blockhashes[3], blockhashes[4]);
  });

  it("tries the shared blockhash without counting it an attempt", async () => {
    // Given one send attempt, and a node that refuses the second transaction's shared blockhash
    let sends = 0;
    const { rpc, calls } = createFakeRpc({
      getLatestBlockhash: latestBlockhash,
      simulateTransaction: simulationSuccess(1_000n),
      sendTransaction: () => {
        if (++sends === 2) throw refusedInPreflight("BlockhashNotFound");
        return "signature";
      },
      getSignatureStatuses: landed(),
    });
    const settings = withSharedBlockhash(settingsFor(rpc, { maxSendAttempts: 1 }));
    // When two transactions of one operation are sent
    await sendAndConfirmTransaction(settings, { feePayer, instructions: [PROGRAM_INSTRUCTION] });
    const second = await sendAndConfirmTransaction(settings, {
      feePayer,
      instructions: [{ ...PROGRAM_INSTRUCTION, data: Uint8Array.of(3, 2, 0) }],
    });
    // Then the second landed with a blockhash of its own after the shared one was refused
    assert.equal(second.attempts, 2);
    assert.equal(callsOf(calls, "getLatestBlockhash").length, 2);
  });
});
