/**
 * `jsonParsed` in getTransaction, read with @solana/kit's own call: System instructions decoded
 * in a validator's shape, instructions of programs without a parser left as they are.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  getAdvanceNonceAccountInstruction,
  getAllocateWithSeedInstruction,
  getAssignWithSeedInstruction,
  getAuthorizeNonceAccountInstruction,
  getCreateAccountAllowPrefundInstruction,
  getCreateAccountInstruction,
  getCreateAccountWithSeedInstruction,
  getInitializeNonceAccountInstruction,
  getTransferSolInstruction,
  getTransferSolWithSeedInstruction,
  getUpgradeNonceAccountInstruction,
  getWithdrawNonceAccountInstruction,
} from "@solana-program/system";
import {
  address,
  createAddressWithSeed,
  generateKeyPairSigner,
  getBase58Decoder,
  type Base64EncodedWireTransaction,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { decodeSystemInstruction } from "../rpc/system-instruction.js";
import { latestBlockhash, signInstructions, type SignedTransaction } from "./support/transactions.js";

const SYSTEM_PROGRAM = address("11111111111111111111111111111111");
const COMPUTE_BUDGET_PROGRAM = address("ComputeBudget111111111111111111111111111111");
const RECENT_BLOCKHASHES_SYSVAR = address("SysvarRecentB1ockHashes11111111111111111111");
const RENT_SYSVAR = address("SysvarRent111111111111111111111111111111111");

/** A kit instruction's accounts and data, as the decoder sees them in a transaction. */
function decodeKitInstruction(instruction: Instruction) {
  return decodeSystemInstruction(
    (instruction.accounts ?? []).map((account) => account.address),
    Uint8Array.from(instruction.data ?? []),
  );
}

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

  /** Sends a signed transaction (without a preflight when asked) and reads it back as jsonParsed. */
  async function landAndReadParsed(signed: SignedTransaction, { skipPreflight = false } = {}) {
    await clients.rpc
      .sendTransaction(signed.base64 as Base64EncodedWireTransaction, { encoding: "base64", skipPreflight })
      .send();
    const parsed = await clients.rpc
      .getTransaction(signed.signature as Signature, {
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
      })
      .send();
    assert.ok(parsed);
    return parsed;
  }

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

    // When it lands and is read as jsonParsed
    const parsed = await landAndReadParsed(signed);

    // Then the System instructions carry their type and info, and the other one its raw data, each
    // at stack height 1 (the transaction's own level), and the meta leaves out loadedAddresses (the
    // parsed account keys name each key's source instead)
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

  test("createAccountAllowPrefund, with a funding account and without one, is decoded as on a validator", async () => {
    // Given the instruction as @solana-program/system builds it: funded by the payer, and (for an
    // account already holding lamports) with no funding account at all
    const owner = address("BPFLoaderUpgradeab1e11111111111111111111111");
    const funded = await generateKeyPairSigner();
    const prefunded = await generateKeyPairSigner();
    const instructions = [
      getCreateAccountAllowPrefundInstruction({
        newAccount: funded,
        payer,
        lamports: 2_000_000n,
        space: 16,
        programAddress: owner,
      }),
      getCreateAccountAllowPrefundInstruction({ newAccount: prefunded, space: 8, programAddress: owner }),
    ];
    const signed = await signInstructions(payer, instructions, await latestBlockhash(ledger.rpcUrl));

    // When it lands (without a preflight: whether this ledger's System program runs it does not
    // matter here) and is read as jsonParsed
    const parsed = await landAndReadParsed(signed, { skipPreflight: true });

    // Then the funded one names its source and lamports, the other only the new account
    assert.deepEqual(
      parsed.transaction.message.instructions.map((instruction) =>
        "parsed" in instruction ? instruction.parsed : instruction,
      ),
      [
        {
          type: "createAccountAllowPrefund",
          info: {
            newAccount: funded.address,
            source: payer.address,
            lamports: 2_000_000n,
            space: 16n,
            owner,
          },
        },
        { type: "createAccountAllowPrefund", info: { newAccount: prefunded.address, space: 8n, owner } },
      ],
    );
  });

  test("a nonce account made at a seeded address is decoded as on a validator: createAccountWithSeed, initializeNonce, advanceNonce, authorizeNonce", async () => {
    // Given a nonce account created at an address derived from the payer and a seed
    const seed = "abas-nonce";
    const nonceAccount = await createAddressWithSeed({
      baseAddress: payer.address,
      programAddress: SYSTEM_PROGRAM,
      seed,
    });
    const created = await signInstructions(
      payer,
      [
        getCreateAccountWithSeedInstruction({
          payer,
          newAccount: nonceAccount,
          base: payer.address,
          seed,
          amount: 2_000_000n,
          space: 80,
          programAddress: SYSTEM_PROGRAM,
        }),
        getInitializeNonceAccountInstruction({ nonceAccount, nonceAuthority: payer.address }),
      ],
      await latestBlockhash(ledger.rpcUrl),
    );
    await clients.rpc
      .sendTransaction(created.base64 as Base64EncodedWireTransaction, { encoding: "base64" })
      .send();
    // And, once the blockhash has moved on, advanced and handed to another authority
    const createdAt = await clients.rpc.getSlot().send();
    while ((await clients.rpc.getSlot().send()) === createdAt) await new Promise((r) => setTimeout(r, 50));
    const newAuthority = await generateKeyPairSigner();
    const advanced = await signInstructions(
      payer,
      [
        getAdvanceNonceAccountInstruction({ nonceAccount, nonceAuthority: payer }),
        getAuthorizeNonceAccountInstruction({
          nonceAccount,
          nonceAuthority: payer,
          newNonceAuthority: newAuthority.address,
        }),
      ],
      await latestBlockhash(ledger.rpcUrl),
    );
    await clients.rpc
      .sendTransaction(advanced.base64 as Base64EncodedWireTransaction, { encoding: "base64" })
      .send();

    // When both are read as jsonParsed
    const read = async (signature: string) =>
      (await clients.rpc
        .getTransaction(signature as Signature, { encoding: "jsonParsed", maxSupportedTransactionVersion: 0 })
        .send())!.transaction.message.instructions.map((instruction) =>
        "parsed" in instruction ? instruction.parsed : instruction,
      );

    // Then each instruction has its type and info, with a validator's field names
    assert.deepEqual(await read(created.signature), [
      {
        type: "createAccountWithSeed",
        info: {
          source: payer.address,
          newAccount: nonceAccount,
          base: payer.address,
          seed,
          lamports: 2_000_000n,
          space: 80n,
          owner: SYSTEM_PROGRAM,
        },
      },
      {
        type: "initializeNonce",
        info: {
          nonceAccount,
          recentBlockhashesSysvar: RECENT_BLOCKHASHES_SYSVAR,
          rentSysvar: RENT_SYSVAR,
          nonceAuthority: payer.address,
        },
      },
    ]);
    assert.deepEqual(await read(advanced.signature), [
      {
        type: "advanceNonce",
        info: {
          nonceAccount,
          recentBlockhashesSysvar: RECENT_BLOCKHASHES_SYSVAR,
          nonceAuthority: payer.address,
        },
      },
      {
        type: "authorizeNonce",
        info: { nonceAccount, nonceAuthority: payer.address, newAuthorized: newAuthority.address },
      },
    ]);
  });

  test("every other System instruction, built by the System program's client, decodes with a validator's field names; short data or accounts do not", async () => {
    const [source, base, destination, owner] = await Promise.all(
      Array.from({ length: 4 }, () => generateKeyPairSigner()),
    );
    const account = address(source!.address);
    assert.deepEqual(
      decodeKitInstruction(
        getWithdrawNonceAccountInstruction({
          nonceAccount: account,
          recipientAccount: destination!.address,
          nonceAuthority: base!,
          withdrawAmount: 5n,
        }),
      ),
      {
        type: "withdrawFromNonce",
        info: {
          nonceAccount: account,
          destination: destination!.address,
          recentBlockhashesSysvar: RECENT_BLOCKHASHES_SYSVAR,
          rentSysvar: RENT_SYSVAR,
          nonceAuthority: base!.address,
          lamports: 5n,
        },
      },
    );
    assert.deepEqual(decodeKitInstruction(getUpgradeNonceAccountInstruction({ nonceAccount: account })), {
      type: "upgradeNonce",
      info: { nonceAccount: account },
    });
    assert.deepEqual(
      decodeKitInstruction(
        getAllocateWithSeedInstruction({
          newAccount: account,
          baseAccount: base!,
          base: base!.address,
          seed: "s1",
          space: 7,
          programAddress: owner!.address,
        }),
      ),
      {
        type: "allocateWithSeed",
        info: { account, base: base!.address, seed: "s1", space: 7n, owner: owner!.address },
      },
    );
    assert.deepEqual(
      decodeKitInstruction(
        getAssignWithSeedInstruction({
          account,
          baseAccount: base!,
          base: base!.address,
          seed: "s2",
          programAddress: owner!.address,
        }),
      ),
      { type: "assignWithSeed", info: { account, base: base!.address, seed: "s2", owner: owner!.address } },
    );
    assert.deepEqual(
      decodeKitInstruction(
        getTransferSolWithSeedInstruction({
          source: account,
          baseAccount: base!,
          destination: destination!.address,
          amount: 9n,
          fromSeed: "s3",
          fromOwner: owner!.address,
        }),
      ),
      {
        type: "transferWithSeed",
        info: {
          source: account,
          sourceBase: base!.address,
          destination: destination!.address,
          lamports: 9n,
          sourceSeed: "s3",
          sourceOwner: owner!.address,
        },
      },
    );
    // A seed whose length runs past the data, and a transfer short of its accounts, are not decoded
    const seeded = getAssignWithSeedInstruction({
      account,
      baseAccount: base!,
      base: base!.address,
      seed: "s2",
      programAddress: owner!.address,
    });
    assert.equal(decodeKitInstruction({ ...seeded, data: seeded.data.subarray(0, 40) }), undefined);
    const transfer = getTransferSolInstruction({
      source: source!,
      destination: destination!.address,
      amount: 1n,
    });
    assert.equal(decodeKitInstruction({ ...transfer, accounts: transfer.accounts.slice(0, 1) }), undefined);
  });
});
