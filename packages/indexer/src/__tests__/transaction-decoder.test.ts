import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ED25519_PROGRAM_ADDRESS,
  encodeAttestInstructionData,
  encodePublishBatchLeavesInstructionData,
  INSTRUCTIONS_SYSVAR_ADDRESS,
  SYSTEM_PROGRAM_ADDRESS,
} from "@abas/program-client";
import { address, getBase58Decoder, type Signature } from "@solana/kit";

import {
  accountsToRead,
  decodeProgramTransaction,
  findPolicyRefusal,
  MalformedTransactionError,
  type TransactionJsonResponse,
} from "../transaction-decoder.js";

const PROGRAM_ID = address("5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN");
const OPERATOR = address("CGgnS9ZSpbfykiWCyBhvn2eMEbfCNdyGU9jzFQGysv6V");
const AGENT_ACCOUNT = address("2qCLrCwU8g1Qg6T5MqXNQ8ujJL3dodVHUS1gKeJCAW1b");
const LOOKED_UP = address("EaKqbrr54JkCKLB9gN9yRNqyRUfe1rw16j7MQt8C7dVh");
const CREDENTIAL = address("4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T");
const SCHEMA = address("8qbHbw2BbbTHBW1sbeqakYXVKRQM8Ne7pLK7m6CVfeR");
const SIGNATURE =
  "5w1Nia5ceuV7qpMC2aixdCLYEpzmJk7kxSwPg2WGyXicixvvaGckiRUJHeAzd3nptPSDGgJMhHg1g3SYmS7PJXpa" as Signature;

const attestData = encodeAttestInstructionData({
  actionType: 1,
  privacyMode: false,
  attestationBump: 255,
  storedHash: new Uint8Array(32).fill(7),
});

/** An Ed25519 check then our attest, whose attestation account (key 8) comes from a lookup table. */
function attestTransaction(err: unknown): TransactionJsonResponse {
  return {
    slot: 42n,
    transaction: {
      signatures: [SIGNATURE],
      message: {
        accountKeys: [
          OPERATOR,
          AGENT_ACCOUNT,
          PROGRAM_ID,
          ED25519_PROGRAM_ADDRESS,
          CREDENTIAL,
          SCHEMA,
          INSTRUCTIONS_SYSVAR_ADDRESS,
          SYSTEM_PROGRAM_ADDRESS,
        ],
        instructions: [
          { programIdIndex: 3, accounts: [], data: getBase58Decoder().decode(new Uint8Array([1, 0])) },
          { programIdIndex: 2, accounts: [0, 1, 8, 4, 5, 6, 7], data: getBase58Decoder().decode(attestData) },
        ],
      },
    },
    meta: { err, loadedAddresses: { writable: [LOOKED_UP], readonly: [] } },
  };
}

describe("decodeProgramTransaction", () => {
  it("keeps only the program's instructions, with their index, name, resolved accounts and data", () => {
    // Given a successful attest transaction
    // When it is decoded
    const decoded = decodeProgramTransaction(SIGNATURE, attestTransaction(null), PROGRAM_ID);

    // Then only the attest instruction is there, at its position in the transaction
    assert.equal(decoded.error, null);
    assert.equal(decoded.slot, 42n);
    assert.equal(decoded.instructions.length, 1);
    const [attest] = decoded.instructions;
    assert.equal(attest?.index, 1);
    assert.equal(attest?.name, "attest");
    assert.deepEqual(attest?.accounts, [
      OPERATOR,
      AGENT_ACCOUNT,
      LOOKED_UP,
      CREDENTIAL,
      SCHEMA,
      INSTRUCTIONS_SYSVAR_ADDRESS,
      SYSTEM_PROGRAM_ADDRESS,
    ]);
    assert.equal(attest?.namedAccounts.attestation, LOOKED_UP);
    assert.equal(attest?.namedAccounts.attestationSchema, SCHEMA);
    assert.deepEqual(attest?.data, attestData);
    assert.deepEqual(accountsToRead(attest!), [AGENT_ACCOUNT, LOOKED_UP]);
  });

  it("names an unknown first byte 'unknown' rather than guessing", () => {
    const response = attestTransaction(null);
    const instructions = [
      { programIdIndex: 2, accounts: [0], data: getBase58Decoder().decode(new Uint8Array([99])) },
    ];
    const decoded = decodeProgramTransaction(
      SIGNATURE,
      {
        ...response,
        transaction: { ...response.transaction, message: { ...response.transaction.message, instructions } },
      },
      PROGRAM_ID,
    );
    assert.equal(decoded.instructions[0]?.name, "unknown");
    assert.deepEqual(accountsToRead(decoded.instructions[0]!), []);
  });

  it("keeps our instructions that another program called through CPI, in execution order", () => {
    // Given a transaction whose instruction 0 is another program that calls ours (a multisig
    // executing for the operator, say), then our own instruction 1
    const response = attestTransaction(null);
    const publishData = encodePublishBatchLeavesInstructionData({
      startIndex: 0,
      leaves: [{ actionType: 1, privacyMode: false, storedHash: new Uint8Array(32).fill(9) }],
    });
    const withCpi: TransactionJsonResponse = {
      ...response,
      meta: {
        ...response.meta!,
        innerInstructions: [
          {
            index: 0,
            instructions: [
              { programIdIndex: 3, accounts: [], data: "" },
              { programIdIndex: 2, accounts: [0, 8, 5], data: getBase58Decoder().decode(publishData) },
            ],
          },
        ],
      },
    };

    // When it is decoded
    const decoded = decodeProgramTransaction(SIGNATURE, withCpi, PROGRAM_ID);

    // Then the inner call comes first, named by the top-level instruction it ran in, then ours
    assert.deepEqual(
      decoded.instructions.map((instruction) => [instruction.index, instruction.inner, instruction.name]),
      [
        [0, true, "publish_batch_leaves"],
        [1, false, "attest"],
      ],
    );
    assert.deepEqual(decoded.instructions[0]?.accounts, [OPERATOR, LOOKED_UP, SCHEMA]);
    assert.deepEqual(decoded.instructions[0]?.namedAccounts, {
      operator: OPERATOR,
      batch: LOOKED_UP,
      batchSchema: SCHEMA,
    });
    assert.deepEqual(decoded.instructions[0]?.data, publishData);
  });

  it("refuses an account index outside the transaction's keys", () => {
    const response = attestTransaction(null);
    const instructions = [{ programIdIndex: 2, accounts: [9], data: "" }];
    assert.throws(
      () =>
        decodeProgramTransaction(
          SIGNATURE,
          {
            ...response,
            transaction: {
              ...response.transaction,
              message: { ...response.transaction.message, instructions },
            },
          },
          PROGRAM_ID,
        ),
      MalformedTransactionError,
    );
  });
  it("refuses a transaction answered without its status (meta null): it may have failed", () => {
    assert.throws(
      () => decodeProgramTransaction(SIGNATURE, { ...attestTransaction(null), meta: null }, PROGRAM_ID),
      (error: unknown) =>
        error instanceof MalformedTransactionError &&
        error.message.includes(SIGNATURE) &&
        error.message.includes("meta is null"),
    );
  });
});

describe("findPolicyRefusal", () => {
  it("finds the agent of an attest refused with ActionTypeNotAllowed, from kit's bigint-valued error", () => {
    // Given an attest that failed with custom error 1204 at instruction 1, as kit returns it
    const decoded = decodeProgramTransaction(
      SIGNATURE,
      attestTransaction({ InstructionError: [1n, { Custom: 1204n }] }),
      PROGRAM_ID,
    );
    // Then the refusal names the agent account of the refused instruction
    assert.deepEqual(findPolicyRefusal(decoded), {
      errorName: "ActionTypeNotAllowed",
      agentAccount: AGENT_ACCOUNT,
    });
  });

  it("counts suspended and revoked agents too, but not other failures", () => {
    const refusal = (err: unknown) =>
      findPolicyRefusal(decodeProgramTransaction(SIGNATURE, attestTransaction(err), PROGRAM_ID))?.errorName;
    assert.equal(refusal({ InstructionError: [1, { Custom: 1202 }] }), "AgentSuspended");
    assert.equal(refusal({ InstructionError: [1, { Custom: 1203 }] }), "AgentRevoked");
    assert.equal(refusal({ InstructionError: [1, { Custom: 1400 }] }), undefined, "DuplicateAttestation");
    assert.equal(refusal("BlockhashNotFound"), undefined);
    // The same number from another program's instruction is not ours
    assert.equal(refusal({ InstructionError: [0, { Custom: 1204 }] }), undefined);
    assert.equal(refusal(null), undefined);
  });
});
