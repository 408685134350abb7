/**
 * The Stake program in jsonParsed, in a validator's shapes: its instructions in getTransaction and
 * its accounts in getAccountInfo, for transactions built by @solana/web3.js's StakeProgram, run by
 * the Stake program on the ledger and read back with web3.js's getParsedTransaction and
 * getParsedAccountInfo.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  Authorized,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  Lockup,
  PublicKey,
  sendAndConfirmTransaction,
  StakeAuthorizationLayout,
  StakeProgram,
  SystemProgram,
  SYSVAR_CLOCK_PUBKEY,
  SYSVAR_RENT_PUBKEY,
  SYSVAR_STAKE_HISTORY_PUBKEY,
  Transaction,
  TransactionInstruction,
  type ParsedInstruction,
} from "@solana/web3.js";

import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";
import { landWithoutPreflight, readShown, type Shown } from "./support/parsed-instructions.js";

const STAKE_CONFIG = "StakeConfig11111111111111111111111111111111";
const CLOCK = SYSVAR_CLOCK_PUBKEY.toBase58();
const STAKE_HISTORY = SYSVAR_STAKE_HISTORY_PUBKEY.toBase58();

const stake = (type: string, info: Record<string, unknown>): Shown => ({ program: "stake", type, info });

describe("the Stake program in jsonParsed", () => {
  let web3: Web3Ledger;
  let connection: Connection;
  let payer: Keypair;
  let p: string;

  /** The instructions of `transaction`, sent and confirmed, as shown. */
  async function sendAndRead(transaction: Transaction, signers: Keypair[] = []): Promise<Shown[]> {
    const signature = await sendAndConfirmTransaction(connection, transaction, [payer, ...signers]);
    return (await readShown(connection, signature)).top;
  }

  /** The same for a transaction the program refuses: sent without preflight, it lands failed. */
  async function sendFailingAndRead(transaction: Transaction): Promise<Shown[]> {
    const { signature, err } = await landWithoutPreflight(connection, payer, transaction);
    assert.ok(err, "the program refuses it");
    return (await readShown(connection, signature)).top;
  }

  /** A new stake account of `sol` SOL, the payer its staker and withdrawer, with `lockup`. */
  async function stakeAccount(sol: number, lockup = new Lockup(0, 0, PublicKey.default)) {
    const account = Keypair.generate();
    const shown = await sendAndRead(
      StakeProgram.createAccount({
        fromPubkey: payer.publicKey,
        stakePubkey: account.publicKey,
        authorized: new Authorized(payer.publicKey, payer.publicKey),
        lockup,
        lamports: sol * LAMPORTS_PER_SOL,
      }),
      [account],
    );
    return { address: account.publicKey, a: account.publicKey.toBase58(), shown };
  }

  before(async () => {
    web3 = await startWeb3Ledger();
    ({ connection, payer } = web3);
    p = payer.publicKey.toBase58();
  });
  after(async () => {
    await web3.stop();
  });

  test("a stake account is initialized, read parsed, split, merged back and withdrawn from", async () => {
    // Given a stake account with a lockup whose custodian is set
    const custodianKey = Keypair.generate();
    const custodian = custodianKey.publicKey;
    const { address, a, shown } = await stakeAccount(5, new Lockup(0, 0, custodian));

    // Then its initialize is shown with the rent sysvar web3.js passes
    const lockup = { unixTimestamp: 0, epoch: 0, custodian: custodian.toBase58() };
    assert.deepEqual(shown[1], {
      ...stake("initialize", {
        stakeAccount: a,
        authorized: { staker: p, withdrawer: p },
        lockup,
        rentSysvar: SYSVAR_RENT_PUBKEY.toBase58(),
      }),
    });
    // And the account reads as a validator's initialized stake account
    const parsed = await connection.getParsedAccountInfo(address);
    const reserve = await connection.getMinimumBalanceForRentExemption(StakeProgram.space);
    assert.deepEqual(parsed.value?.data, {
      program: "stake",
      parsed: {
        type: "initialized",
        info: {
          meta: { rentExemptReserve: String(reserve), authorized: { staker: p, withdrawer: p }, lockup },
          stake: null,
        },
      },
      space: StakeProgram.space,
    });

    // When 1 SOL is split off, merged back and 0.5 SOL withdrawn
    const split = Keypair.generate();
    const splitShown = await sendAndRead(
      StakeProgram.split(
        {
          stakePubkey: address,
          authorizedPubkey: payer.publicKey,
          splitStakePubkey: split.publicKey,
          lamports: LAMPORTS_PER_SOL,
        },
        reserve,
      ),
      [split],
    );
    const merged = await sendAndRead(
      StakeProgram.merge({
        stakePubkey: address,
        sourceStakePubKey: split.publicKey,
        authorizedPubkey: payer.publicKey,
      }),
    );
    const withdrawn = await sendAndRead(
      StakeProgram.withdraw({
        stakePubkey: address,
        authorizedPubkey: payer.publicKey,
        toPubkey: payer.publicKey,
        lamports: LAMPORTS_PER_SOL / 2,
        custodianPubkey: custodian,
      }),
      [custodianKey], // web3.js has the custodian sign, though a lockup that has passed needs none
    );
    const s = split.publicKey.toBase58();
    assert.deepEqual(
      [splitShown.at(-1), merged.at(-1), withdrawn.at(-1)],
      [
        stake("split", {
          stakeAccount: a,
          newSplitAccount: s,
          lamports: LAMPORTS_PER_SOL,
          stakeAuthority: p,
        }),
        stake("merge", {
          destination: a,
          source: s,
          clockSysvar: CLOCK,
          stakeHistorySysvar: STAKE_HISTORY,
          stakeAuthority: p,
        }),
        stake("withdraw", {
          stakeAccount: a,
          destination: p,
          lamports: LAMPORTS_PER_SOL / 2,
          clockSysvar: CLOCK,
          stakeHistorySysvar: STAKE_HISTORY,
          withdrawAuthority: p,
          custodian: custodian.toBase58(),
        }),
      ],
    );
    // Then the split account is gone into the first (with the rent reserve web3.js funded it with),
    // less what was withdrawn
    assert.equal(await connection.getBalance(address), 4.5 * LAMPORTS_PER_SOL + reserve);
    assert.equal(await connection.getAccountInfo(split.publicKey), null);
  });

  test("authorities change, directly and through a seed-derived authority", async () => {
    // Given a stake account whose staker is an address derived from a base key and a seed
    const base = Keypair.generate();
    const derived = await PublicKey.createWithSeed(base.publicKey, "agent", SystemProgram.programId);
    const account = Keypair.generate();
    await sendAndRead(
      StakeProgram.createAccount({
        fromPubkey: payer.publicKey,
        stakePubkey: account.publicKey,
        authorized: new Authorized(derived, payer.publicKey),
        lockup: new Lockup(0, 0, PublicKey.default),
        lamports: LAMPORTS_PER_SOL,
      }),
      [account],
    );
    const a = account.publicKey.toBase58();

    // When the base hands the staker role to the payer, and the payer's withdrawer role to a new key
    const withdrawer = Keypair.generate().publicKey;
    const bySeed = await sendAndRead(
      StakeProgram.authorizeWithSeed({
        stakePubkey: account.publicKey,
        authorityBase: base.publicKey,
        authoritySeed: "agent",
        authorityOwner: SystemProgram.programId,
        newAuthorizedPubkey: payer.publicKey,
        stakeAuthorizationType: StakeAuthorizationLayout.Staker,
      }),
      [base],
    );
    const direct = await sendAndRead(
      StakeProgram.authorize({
        stakePubkey: account.publicKey,
        authorizedPubkey: payer.publicKey,
        newAuthorizedPubkey: withdrawer,
        stakeAuthorizationType: StakeAuthorizationLayout.Withdrawer,
      }),
    );
    assert.deepEqual(
      [bySeed[0], direct[0]],
      [
        stake("authorizeWithSeed", {
          stakeAccount: a,
          authorityBase: base.publicKey.toBase58(),
          newAuthorized: p,
          authorityType: "Staker",
          authoritySeed: "agent",
          authorityOwner: SystemProgram.programId.toBase58(),
          clockSysvar: CLOCK,
        }),
        stake("authorize", {
          stakeAccount: a,
          newAuthority: withdrawer.toBase58(),
          authorityType: "Withdrawer",
          clockSysvar: CLOCK,
          authority: p,
        }),
      ],
    );
    const parsed = (await connection.getParsedAccountInfo(account.publicKey)).value?.data as {
      parsed: { info: { meta: { authorized: unknown } } };
    };
    assert.deepEqual(parsed.parsed.info.meta.authorized, { staker: p, withdrawer: withdrawer.toBase58() });
  });

  test("a delegation to an account that is no vote account, and a deactivation of stake never delegated, land failed and are shown", async () => {
    // Given a stake account; the ledger has no vote accounts
    const { address, a } = await stakeAccount(1);
    const vote = Keypair.generate().publicKey;

    // When it is delegated to a key that is no vote account, then deactivated: both fail
    const delegated = await sendFailingAndRead(
      StakeProgram.delegate({ stakePubkey: address, authorizedPubkey: payer.publicKey, votePubkey: vote }),
    );
    const deactivated = await sendFailingAndRead(
      StakeProgram.deactivate({ stakePubkey: address, authorizedPubkey: payer.publicKey }),
    );

    // Then each is shown parsed, with the legacy layout's sysvars and stake config
    assert.deepEqual(
      [delegated[0], deactivated[0]],
      [
        stake("delegate", {
          stakeAccount: a,
          voteAccount: vote.toBase58(),
          clockSysvar: CLOCK,
          stakeHistorySysvar: STAKE_HISTORY,
          stakeConfigAccount: STAKE_CONFIG,
          stakeAuthority: p,
        }),
        stake("deactivate", { stakeAccount: a, clockSysvar: CLOCK, stakeAuthority: p }),
      ],
    );
  });

  test("getMinimumDelegation, which has no fields, is shown with no info at all, as on a validator", async () => {
    // Given a transaction asking the Stake program for its minimum delegation (tag 13, one account)
    const { signature, err } = await landWithoutPreflight(
      connection,
      payer,
      new Transaction().add(
        new TransactionInstruction({
          programId: StakeProgram.programId,
          keys: [{ pubkey: payer.publicKey, isSigner: false, isWritable: false }],
          data: Buffer.from([13, 0, 0, 0]),
        }),
      ),
    );
    assert.equal(err, null);

    // Then its parsed form is a type alone
    const transaction = await connection.getParsedTransaction(signature, {
      maxSupportedTransactionVersion: 0,
    });
    const [instruction] = transaction!.transaction.message.instructions as ParsedInstruction[];
    assert.deepEqual(instruction!.parsed, { type: "getMinimumDelegation" });
  });
});
