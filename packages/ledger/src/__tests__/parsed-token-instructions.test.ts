/**
 * `jsonParsed` decoding of SPL Token, Associated Token Account and SPL Memo instructions in
 * getTransaction, in a validator's shape: transactions built and sent by @solana/spl-token and
 * read back with @solana/web3.js's getParsedTransaction.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";

import {
  approve,
  approveChecked,
  burn,
  burnChecked,
  closeAccount,
  createAccount,
  createAssociatedTokenAccount,
  createMint,
  createMultisig,
  createWrappedNativeAccount,
  freezeAccount,
  mintTo,
  mintToChecked,
  NATIVE_MINT,
  revoke,
  setAuthority,
  thawAccount,
  AuthorityType,
  TOKEN_PROGRAM_ID,
  transfer,
  transferChecked,
} from "@solana/spl-token";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  Transaction,
  TransactionInstruction,
  type ParsedTransactionWithMeta,
} from "@solana/web3.js";
import { getBase58Decoder } from "@solana/kit";

import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";
import {
  landWithoutPreflight,
  newestSignature as newestSignatureOf,
  readShown,
  shown,
} from "./support/parsed-instructions.js";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const MEMO_PROGRAM = new PublicKey("MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr");
const TOKEN = TOKEN_PROGRAM_ID.toBase58();

describe("jsonParsed token instructions", () => {
  let web3: Web3Ledger;
  let connection: Connection;
  let payer: Keypair;

  const read = (signature: string) => readShown(connection, signature);
  const newestSignature = (address: PublicKey) => newestSignatureOf(connection, address);

  before(async () => {
    web3 = await startWeb3Ledger();
    ({ connection, payer } = web3);
  });
  after(async () => {
    await web3.stop();
  });

  test("a mint, an associated account, mintTo, transfers, approvals, burns, setAuthority and closeAccount", async () => {
    // Given a mint with a freeze authority, created by spl-token
    const freezer = Keypair.generate();
    const mintKeypair = Keypair.generate();
    const mint = await createMint(connection, payer, payer.publicKey, freezer.publicKey, 6, mintKeypair);
    const owner = payer.publicKey.toBase58();
    const mintAddress = mint.toBase58();

    // Then createMint is a System createAccount and an initializeMint2
    const created = await read(await newestSignature(mint));
    assert.deepEqual(created.top[1], {
      program: "spl-token",
      type: "initializeMint2",
      info: {
        mint: mintAddress,
        decimals: 6,
        mintAuthority: owner,
        freezeAuthority: freezer.publicKey.toBase58(),
      },
    });
    assert.equal((created.top[0] as { type: string }).type, "createAccount");

    // When an associated account is created, its program's create is parsed, and the token
    // program's inner instructions too
    const alice = Keypair.generate();
    const aliceAccount = await createAssociatedTokenAccount(connection, payer, mint, alice.publicKey);
    const ata = await read(await newestSignature(aliceAccount));
    assert.deepEqual(ata.top[0], {
      program: "spl-associated-token-account",
      type: "create",
      info: {
        source: owner,
        account: aliceAccount.toBase58(),
        wallet: alice.publicKey.toBase58(),
        mint: mintAddress,
        systemProgram: SYSTEM_PROGRAM,
        tokenProgram: TOKEN,
      },
    });
    assert.deepEqual(
      ata.inner.map((instruction) => ("type" in instruction ? instruction.type : "unparsed")),
      ["getAccountDataSize", "createAccount", "initializeImmutableOwner", "initializeAccount3"],
    );
    assert.deepEqual(ata.inner[0], {
      program: "spl-token",
      type: "getAccountDataSize",
      info: { mint: mintAddress, extensionTypes: ["immutableOwner"] },
    });
    assert.deepEqual(ata.inner[3], {
      program: "spl-token",
      type: "initializeAccount3",
      info: { account: aliceAccount.toBase58(), mint: mintAddress, owner: alice.publicKey.toBase58() },
    });

    // mintTo
    const bob = Keypair.generate();
    const bobAccount = await createAssociatedTokenAccount(connection, payer, mint, bob.publicKey);
    const minted = await read(await mintTo(connection, payer, mint, aliceAccount, payer, 2_000_000n));
    assert.deepEqual(minted.top, [
      {
        program: "spl-token",
        type: "mintTo",
        info: {
          mint: mintAddress,
          account: aliceAccount.toBase58(),
          amount: "2000000",
          mintAuthority: owner,
        },
      },
    ]);

    // transferChecked and transfer
    const checked = await read(
      await transferChecked(connection, payer, aliceAccount, mint, bobAccount, alice, 250_000n, 6),
    );
    assert.deepEqual(checked.top, [
      {
        program: "spl-token",
        type: "transferChecked",
        info: {
          source: aliceAccount.toBase58(),
          mint: mintAddress,
          destination: bobAccount.toBase58(),
          tokenAmount: { amount: "250000", decimals: 6, uiAmount: 0.25, uiAmountString: "0.25" },
          authority: alice.publicKey.toBase58(),
        },
      },
    ]);
    const plain = await read(await transfer(connection, payer, aliceAccount, bobAccount, alice, 5n));
    assert.deepEqual(plain.top, [
      {
        program: "spl-token",
        type: "transfer",
        info: {
          source: aliceAccount.toBase58(),
          destination: bobAccount.toBase58(),
          amount: "5",
          authority: alice.publicKey.toBase58(),
        },
      },
    ]);

    // approve and revoke
    const delegate = Keypair.generate().publicKey.toBase58();
    const approved = await read(
      await approve(connection, payer, aliceAccount, new PublicKey(delegate), alice, 7n),
    );
    assert.deepEqual(approved.top, [
      {
        program: "spl-token",
        type: "approve",
        info: { source: aliceAccount.toBase58(), delegate, amount: "7", owner: alice.publicKey.toBase58() },
      },
    ]);
    const revoked = await read(await revoke(connection, payer, aliceAccount, alice));
    assert.deepEqual(revoked.top, [
      {
        program: "spl-token",
        type: "revoke",
        info: { source: aliceAccount.toBase58(), owner: alice.publicKey.toBase58() },
      },
    ]);

    // burn and burnChecked
    const burned = await read(await burn(connection, payer, bobAccount, mint, bob, 5n));
    assert.deepEqual(burned.top, [
      {
        program: "spl-token",
        type: "burn",
        info: {
          account: bobAccount.toBase58(),
          mint: mintAddress,
          amount: "5",
          authority: bob.publicKey.toBase58(),
        },
      },
    ]);
    const burnedChecked = await read(
      await burnChecked(connection, payer, bobAccount, mint, bob, 250_000n, 6),
    );
    assert.deepEqual((burnedChecked.top[0] as { info: unknown }).info, {
      account: bobAccount.toBase58(),
      mint: mintAddress,
      tokenAmount: { amount: "250000", decimals: 6, uiAmount: 0.25, uiAmountString: "0.25" },
      authority: bob.publicKey.toBase58(),
    });

    // mintToChecked and approveChecked show token amounts
    const mintedChecked = await read(
      await mintToChecked(connection, payer, mint, bobAccount, payer, 1_000n, 6),
    );
    assert.deepEqual(mintedChecked.top, [
      {
        program: "spl-token",
        type: "mintToChecked",
        info: {
          mint: mintAddress,
          account: bobAccount.toBase58(),
          tokenAmount: { amount: "1000", decimals: 6, uiAmount: 0.001, uiAmountString: "0.001" },
          mintAuthority: owner,
        },
      },
    ]);
    const approvedChecked = await read(
      await approveChecked(connection, payer, mint, aliceAccount, new PublicKey(delegate), alice, 9n, 6),
    );
    assert.deepEqual((approvedChecked.top[0] as { type: string; info: unknown }).info, {
      source: aliceAccount.toBase58(),
      mint: mintAddress,
      delegate,
      tokenAmount: { amount: "9", decimals: 6, uiAmount: 0.000009, uiAmountString: "0.000009" },
      owner: alice.publicKey.toBase58(),
    });

    // freezeAccount and thawAccount by the freeze authority
    const frozen = await read(await freezeAccount(connection, payer, bobAccount, mint, freezer));
    assert.deepEqual(frozen.top, [
      {
        program: "spl-token",
        type: "freezeAccount",
        info: {
          account: bobAccount.toBase58(),
          mint: mintAddress,
          freezeAuthority: freezer.publicKey.toBase58(),
        },
      },
    ]);
    const thawed = await read(await thawAccount(connection, payer, bobAccount, mint, freezer));
    assert.equal((thawed.top[0] as { type: string }).type, "thawAccount");
    await burn(connection, payer, bobAccount, mint, bob, 1_000n);

    // setAuthority: the mint authority goes away
    const unset = await read(
      await setAuthority(connection, payer, mint, payer, AuthorityType.MintTokens, null),
    );
    assert.deepEqual(unset.top, [
      {
        program: "spl-token",
        type: "setAuthority",
        info: { mint: mintAddress, authorityType: "mintTokens", newAuthority: null, authority: owner },
      },
    ]);

    // closeAccount of Bob's now empty account
    const closed = await read(await closeAccount(connection, payer, bobAccount, payer.publicKey, bob));
    assert.deepEqual(closed.top, [
      {
        program: "spl-token",
        type: "closeAccount",
        info: { account: bobAccount.toBase58(), destination: owner, owner: bob.publicKey.toBase58() },
      },
    ]);
  });

  test("a multisig authority is shown with its signers; initializeAccount with its rent sysvar", async () => {
    // Given a 2-of-2 multisig that owns a token account created with a keypair
    const [first, second] = [Keypair.generate(), Keypair.generate()];
    const multisig = await createMultisig(connection, payer, [first.publicKey, second.publicKey], 2);
    const initialized = await read(await newestSignature(multisig));
    assert.deepEqual(initialized.top[1], {
      program: "spl-token",
      type: "initializeMultisig",
      info: {
        multisig: multisig.toBase58(),
        rentSysvar: "SysvarRent111111111111111111111111111111111",
        signers: [first.publicKey.toBase58(), second.publicKey.toBase58()],
        m: 2,
      },
    });
    const mint = await createMint(connection, payer, payer.publicKey, null, 0);
    const held = await createAccount(connection, payer, mint, multisig, Keypair.generate());
    const heldCreation = await read(await newestSignature(held));
    assert.deepEqual(heldCreation.top[1], {
      program: "spl-token",
      type: "initializeAccount",
      info: {
        account: held.toBase58(),
        mint: mint.toBase58(),
        owner: multisig.toBase58(),
        rentSysvar: "SysvarRent111111111111111111111111111111111",
      },
    });
    await mintTo(connection, payer, mint, held, payer, 10n);

    // When the multisig transfers, signed by both
    const destination = await createAccount(connection, payer, mint, payer.publicKey, Keypair.generate());
    const signature = await transfer(connection, payer, held, destination, multisig, 3n, [first, second]);

    // Then the authority is the multisig, with its signers listed
    assert.deepEqual((await read(signature)).top, [
      {
        program: "spl-token",
        type: "transfer",
        info: {
          source: held.toBase58(),
          destination: destination.toBase58(),
          amount: "3",
          multisigAuthority: multisig.toBase58(),
          signers: [first.publicKey.toBase58(), second.publicKey.toBase58()],
        },
      },
    ]);
  });

  test("syncNative of wrapped SOL, and a memo, are parsed", async () => {
    // Given wrapped SOL in an associated account (transfer then syncNative)
    const account = await createWrappedNativeAccount(connection, payer, payer.publicKey, LAMPORTS_PER_SOL);
    const wrapped = await read(await newestSignature(account));
    assert.deepEqual(wrapped.top.at(-1), {
      program: "spl-token",
      type: "syncNative",
      info: { account: account.toBase58() },
    });
    const balance = await connection.getParsedAccountInfo(account);
    const info = (
      balance.value?.data as {
        parsed: { info: { isNative: boolean; tokenAmount: { uiAmountString: string }; mint: string } };
      }
    ).parsed.info;
    assert.equal(info.isNative, true);
    assert.equal(info.mint, NATIVE_MINT.toBase58());
    assert.equal(info.tokenAmount.uiAmountString, "1");

    // When a memo is sent
    const signature = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        new TransactionInstruction({
          programId: MEMO_PROGRAM,
          keys: [],
          data: Buffer.from("\uFEFFledger ✓"),
        }),
      ),
      [payer],
    );

    // Then it is its text, a leading byte-order mark kept, as a validator's Rust string keeps it
    assert.deepEqual((await read(signature)).top, [
      { program: "spl-memo", type: "memo", info: "\uFEFFledger ✓" },
    ]);
  });

  test("getBlock in jsonParsed decodes a block's token instructions the same way", async () => {
    // Given a mint created in some slot
    const mint = await createMint(connection, payer, payer.publicKey, null, 3);
    const signature = await newestSignature(mint);
    const { slot } = (await connection.getParsedTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    }))!;
    while ((await connection.getSlot()) <= slot) await sleep(20);

    // When its block is read parsed
    const block = await connection.getParsedBlock(slot, {
      maxSupportedTransactionVersion: 0,
      transactionDetails: "full",
    });

    // Then the transaction's initializeMint2 is there, parsed
    // (web3.js types every getParsedBlock as its "accounts" mode; "full" carries whole messages)
    const transactions = (block as unknown as { transactions: ParsedTransactionWithMeta[] }).transactions;
    const transaction = transactions.find((entry) => entry.transaction.signatures[0] === signature);
    assert.ok(transaction);
    assert.deepEqual(shown(transaction.transaction.message.instructions[1]!), {
      program: "spl-token",
      type: "initializeMint2",
      info: { mint: mint.toBase58(), decimals: 3, mintAuthority: payer.publicKey.toBase58() },
    });
  });

  test("a token instruction the parser refuses is shown partially decoded, as on a validator", async () => {
    // Given a transaction whose token instruction has an unknown tag (it fails, but lands)
    const data = Uint8Array.of(250, 1, 2, 3);
    const transaction = new Transaction().add(
      new TransactionInstruction({ programId: TOKEN_PROGRAM_ID, keys: [], data: Buffer.from(data) }),
    );
    const { signature, err } = await landWithoutPreflight(connection, payer, transaction);
    assert.deepEqual(err, { InstructionError: [0, { Custom: 12 }] });

    // Then its data is shown as base58, under its program id
    assert.deepEqual((await read(signature)).top, [
      { unparsed: TOKEN, data: getBase58Decoder().decode(data) },
    ]);
  });
});
