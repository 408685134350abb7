/**
 * `jsonParsed` in getTransaction, read with @solana/kit's own call: System instructions decoded
 * in a validator's shape, instructions of programs without a parser left as they are.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { getCreateAccountInstruction, getTransferSolInstruction } from "@solana-program/system";
import {
  address,
  generateKeyPairSigner,
  getBase58Decoder,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { latestBlockhash, signInstructions } from "./support/transactions.js";

const SYSTEM_PROGRAM = address("11111111111111111111111111111111");
const COMPUTE_BUDGET_PROGRAM = address("ComputeBudget111111111111111111111111111111");

describe("jsonParsed instructions", () => {
  let ledger: LedgerUnderTest;
  let clients: ReturnType<typeof kitClients>;
  let payer: KeyPairSigner;

  before(async () => {
    ledger = await startLedgerProcess();
    clients = kitClients(ledger);
    payer = await fundedSigner(clients);
  });
  after(async () => await ledger.dispose());

  test("System createAccount and transfer are decoded; a compute budget instruction is left as data", async () => {
    // Given one transaction with a compute unit limit, a createAccount and a transfer
    const newAccount = await generateKeyPairSigner();
    const recipient = await generateKeyPairSigner();
    const owner = address("BPFLoaderUpgradeab1e11111111111111111111111");
    const computeUnitLimit = Uint8Array.of(2, 0x40, 0x0d, 0x03, 0x00); // SetComputeUnitLimit(200,000)
    const signed = await signInstructions(
      payer,
      [
        { programAddress: COMPUTE_BUDGET_PROGRAM, data: computeUnitLimit },
        getCreateAccountInstruction({
          payer,
          newAccount,
          lamports: 2_000_000n,
          space: 16,
          programAddress: owner,
        }),
        getTransferSolInstruction({ source: payer, destination: recipient.address, amount: 1_000_000_000n }),
      ],
      await latestBlockhash(ledger.rpcUrl),
    );
    await clients.rpc
      .sendTransaction(signed.base64 as Base64EncodedWireTransaction, { encoding: "base64" })
      .send();

    // When it is read as jsonParsed
    const parsed = await clients.rpc
      .getTransaction(signed.signature as Signature, {
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
      })
      .send();

    // Then the System instructions carry their type and info, and the other one its raw data, each
    // at stack height 1 (the transaction's own level), and the meta leaves out loadedAddresses (the
    // parsed account keys name each key's source instead)
    assert.ok(parsed);
    assert.equal((parsed.meta as { loadedAddresses?: unknown } | null)?.loadedAddresses, undefined);
    const [budget, create, transfer] = parsed.transaction.message.instructions;
    assert.deepEqual(budget, {
      programId: COMPUTE_BUDGET_PROGRAM,
      accounts: [],
      data: getBase58Decoder().decode(computeUnitLimit),
      stackHeight: 1,
    });
    assert.deepEqual(create, {
      program: "system",
      programId: SYSTEM_PROGRAM,
      parsed: {
        type: "createAccount",
        info: {
          source: payer.address,
          newAccount: newAccount.address,
          lamports: 2_000_000n,
          space: 16n,
          owner,
        },
      },
      stackHeight: 1,
    });
    assert.deepEqual(transfer, {
      program: "system",
      programId: SYSTEM_PROGRAM,
      parsed: {
        type: "transfer",
        info: { source: payer.address, destination: recipient.address, lamports: 1_000_000_000n },
      },
      stackHeight: 1,
    });
  });

  test("an ABAS instruction comes back partially decoded, as a validator, which has no ABAS parser, shows it", async () => {
    // Given the program's transactions from genesis (deployment, then its initialize)
    const history = await clients.rpc.getSignaturesForAddress(address(ledger.programId)).send();

    // When they are read as jsonParsed
    const transactions = await Promise.all(
      history.map(({ signature }) =>
        clients.rpc
          .getTransaction(signature, { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 })
          .send(),
      ),
    );

    // Then the ABAS instruction is its program id, accounts and base58 data, with no parsed form
    const instruction = transactions
      .flatMap((transaction) => transaction!.transaction.message.instructions)
      .find((entry) => entry.programId === ledger.programId);
    assert.ok(instruction);
    assert.deepEqual(Object.keys(instruction).sort(), ["accounts", "data", "programId", "stackHeight"]);
  });
});
