import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__MESSAGE_MISMATCH,
  ABAS_RUNTIME__ACCOUNT_IN_USE,
  ABAS_RUNTIME__ALREADY_PROCESSED,
  ABAS_RUNTIME__BLOCKHASH_NOT_FOUND,
  ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED,
  ABAS_RUNTIME__INSTRUCTION_FAILED,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
  ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT,
  ABAS_RUNTIME__TRANSACTION_FAILED,
  ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED,
  isAbasError,
  type AbasErrorCode,
} from "@abas/errors";
import {
  getSolanaErrorFromTransactionError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SolanaError,
} from "@solana/kit";

import { ED25519_PROGRAM_ADDRESS } from "../constants.js";
import {
  getAbasErrorFromTransactionError,
  getProgramErrorFromTransactionError,
  getRuntimeErrorFromTransactionError,
} from "../errors.js";
import { PROGRAM_ID } from "./fixtures.js";

/* Stand-ins with the shapes of the litesvm package's result and error classes. */
class InstructionErrorCustom {
  constructor(readonly code: number) {}
}
class TransactionErrorInstructionError {
  constructor(
    readonly index: number,
    private readonly detail: unknown,
  ) {}
  err(): unknown {
    return this.detail;
  }
}
class TransactionErrorInsufficientFundsForRent {
  constructor(readonly accountIndex: number) {}
}
class FailedTransactionMetadata {
  constructor(private readonly error: unknown) {}
  err(): unknown {
    return this.error;
  }
  meta(): object {
    return {};
  }
}
/** litesvm's numeric `TransactionErrorFieldless` values used below. */
const LITESVM_INSUFFICIENT_FUNDS_FOR_FEE = 4;
const LITESVM_SIGNATURE_FAILURE = 11;

function assertCode(error: unknown, code: AbasErrorCode): void {
  assert.ok(isAbasError(error), `expected AbasError ${code}, got ${String(error)}`);
  assert.equal(error.context.__code, code);
}

describe("getProgramErrorFromTransactionError", () => {
  it("names a custom program error in RPC JSON, with the failing instruction", () => {
    // Given the RPC error of a transaction whose second instruction returned 1203
    const rpcError = { InstructionError: [1, { Custom: 1203 }] };
    // When it is mapped
    const error = getProgramErrorFromTransactionError(rpcError);
    // Then it is the named program error, at instruction 1, caused by the original error
    assertCode(error, ABAS_PROGRAM__AGENT_REVOKED);
    assert.equal(error?.context.programErrorName, "AgentRevoked");
    assert.equal(error?.context.instructionIndex, 1);
    assert.equal(error?.cause, rpcError);
  });

  it("names a custom program error in the RPC JSON kit returns, where numbers are bigints", () => {
    // Given the error as @solana/kit's RPC hands it over: indexes and codes as bigints
    const kitRpcError = { InstructionError: [1n, { Custom: 1204n }] };
    // When it is mapped
    const error = getProgramErrorFromTransactionError(kitRpcError);
    // Then it is the named program error at instruction 1
    assertCode(error, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED);
    assert.equal(error?.context.instructionIndex, 1);
  });

  it("names a custom program error in a litesvm failed transaction", () => {
    const failed = new FailedTransactionMetadata(
      new TransactionErrorInstructionError(1, new InstructionErrorCustom(1304)),
    );
    const error = getProgramErrorFromTransactionError(failed);
    assertCode(error, ABAS_PROGRAM__MESSAGE_MISMATCH);
    assert.equal(error?.context.instructionIndex, 1);
  });

  it("names a custom program error in a kit SolanaError, also behind causes", () => {
    const kitError = getSolanaErrorFromTransactionError({ InstructionError: [0, { Custom: 1203 }] });
    assertCode(getProgramErrorFromTransactionError(kitError), ABAS_PROGRAM__AGENT_REVOKED);
    const preflight = new SolanaError(
      SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
      {
        cause: kitError,
      } as never,
    );
    assertCode(getProgramErrorFromTransactionError(preflight), ABAS_PROGRAM__AGENT_REVOKED);
    assertCode(
      getProgramErrorFromTransactionError(new Error("send failed", { cause: preflight })),
      ABAS_PROGRAM__AGENT_REVOKED,
    );
  });

  it("returns undefined for custom codes of other programs and for other failures", () => {
    for (const other of [
      { InstructionError: [0, { Custom: 2 }] },
      { InstructionError: [2, "InvalidArgument"] },
      "BlockhashNotFound",
      LITESVM_SIGNATURE_FAILURE,
      undefined,
      null,
      {},
      new Error("network down"),
    ]) {
      assert.equal(getProgramErrorFromTransactionError(other), undefined);
    }
  });
});

describe("getRuntimeErrorFromTransactionError", () => {
  it("names transaction-level failures from RPC JSON, litesvm and kit", () => {
    const cases: [unknown, AbasErrorCode][] = [
      ["SignatureFailure", ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED],
      [LITESVM_SIGNATURE_FAILURE, ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED],
      [
        getSolanaErrorFromTransactionError("SignatureFailure"),
        ABAS_RUNTIME__TRANSACTION_SIGNATURE_VERIFICATION_FAILED,
      ],
      ["InsufficientFundsForFee", ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE],
      [
        new FailedTransactionMetadata(LITESVM_INSUFFICIENT_FUNDS_FOR_FEE),
        ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_FEE,
      ],
      ["BlockhashNotFound", ABAS_RUNTIME__BLOCKHASH_NOT_FOUND],
      [getSolanaErrorFromTransactionError("BlockhashNotFound"), ABAS_RUNTIME__BLOCKHASH_NOT_FOUND],
      ["AccountInUse", ABAS_RUNTIME__ACCOUNT_IN_USE],
      ["AlreadyProcessed", ABAS_RUNTIME__ALREADY_PROCESSED],
      ["AccountNotFound", ABAS_RUNTIME__TRANSACTION_FAILED],
    ];
    for (const [transactionError, code] of cases)
      assertCode(getRuntimeErrorFromTransactionError(transactionError), code);
  });

  it("names the account that would be left without rent, in every shape", () => {
    for (const [transactionError, accountIndex] of [
      [{ InsufficientFundsForRent: { account_index: 3 } }, 3],
      [new TransactionErrorInsufficientFundsForRent(2), 2],
      [getSolanaErrorFromTransactionError({ InsufficientFundsForRent: { account_index: 1 } }), 1],
    ] as const) {
      const error = getRuntimeErrorFromTransactionError(transactionError);
      assertCode(error, ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT);
      assert.equal(
        isAbasError(error, ABAS_RUNTIME__INSUFFICIENT_FUNDS_FOR_RENT) && error.context.accountIndex,
        accountIndex,
      );
    }
  });

  it("names an unknown transaction error after the runtime's own name", () => {
    const error = getRuntimeErrorFromTransactionError({ DuplicateInstruction: 1 });
    assert.ok(isAbasError(error, ABAS_RUNTIME__TRANSACTION_FAILED));
    assert.equal(error.context.transactionError, "DuplicateInstruction");
  });

  it("names the Ed25519 precompile rejecting a signature, when told which instruction is the precompile", () => {
    // Given a transaction [Ed25519 verify, attest] whose first instruction failed with Custom(2)
    const failure = new FailedTransactionMetadata(
      new TransactionErrorInstructionError(0, new InstructionErrorCustom(2)),
    );
    // When it is mapped knowing the programs of the instructions
    const error = getRuntimeErrorFromTransactionError(failure, {
      instructionProgramAddresses: [ED25519_PROGRAM_ADDRESS, PROGRAM_ID],
    });
    // Then it is the signature verification failure of the precompile
    assert.ok(isAbasError(error, ABAS_RUNTIME__ED25519_SIGNATURE_VERIFICATION_FAILED));
    assert.deepEqual([error.context.instructionIndex, error.context.precompileErrorCode], [0, 2]);
  });

  it("names another instruction's failure with its index and the runtime's description", () => {
    const custom = getRuntimeErrorFromTransactionError({ InstructionError: [0, { Custom: 2 }] });
    assert.ok(isAbasError(custom, ABAS_RUNTIME__INSTRUCTION_FAILED));
    assert.deepEqual([custom.context.instructionIndex, custom.context.instructionError], [0, "Custom(2)"]);
    const named = getRuntimeErrorFromTransactionError({ InstructionError: [3, "InvalidArgument"] });
    assert.ok(isAbasError(named, ABAS_RUNTIME__INSTRUCTION_FAILED));
    assert.deepEqual(
      [named.context.instructionIndex, named.context.instructionError],
      [3, "InvalidArgument"],
    );
    const kitNamed = getRuntimeErrorFromTransactionError(
      getSolanaErrorFromTransactionError({ InstructionError: [2, "InvalidArgument"] }),
    );
    assert.ok(isAbasError(kitNamed, ABAS_RUNTIME__INSTRUCTION_FAILED));
    assert.equal(kitNamed.context.instructionIndex, 2);
    const borsh = getRuntimeErrorFromTransactionError({ InstructionError: [1, { BorshIoError: "eof" }] });
    assert.ok(isAbasError(borsh, ABAS_RUNTIME__INSTRUCTION_FAILED));
    assert.equal(borsh.context.instructionError, "BorshIoError");
  });

  it("leaves program errors and unrecognised values alone", () => {
    for (const value of [
      { InstructionError: [1, { Custom: 1203 }] },
      undefined,
      "",
      999,
      {},
      { a: 1, b: 2 },
      new Error("x"),
    ]) {
      assert.equal(getRuntimeErrorFromTransactionError(value), undefined);
    }
  });
});

describe("getAbasErrorFromTransactionError", () => {
  it("prefers the program error and falls back to the runtime error", () => {
    assertCode(
      getAbasErrorFromTransactionError({ InstructionError: [1, { Custom: 1203 }] }),
      ABAS_PROGRAM__AGENT_REVOKED,
    );
    assertCode(getAbasErrorFromTransactionError("BlockhashNotFound"), ABAS_RUNTIME__BLOCKHASH_NOT_FOUND);
    assert.equal(getAbasErrorFromTransactionError(undefined), undefined);
  });
});
