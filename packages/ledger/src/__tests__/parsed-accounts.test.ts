/**
 * Accounts other than tokens in jsonParsed, as a validator's account decoder shows them: the
 * sysvars, against the decoders of @solana/sysvars (part of @solana/kit) for the same accounts'
 * bytes; a durable nonce, against @solana/web3.js's NonceAccount; the ABAS program and its program
 * data, against the upgradeable loader's layout read from their bytes; an address lookup table,
 * created, extended and used by a v0 transaction with web3.js, against web3.js's reading of it,
 * with the table program's instructions in jsonParsed; and the client call that needs the parsed
 * Clock:
 * @solana/spl-token's `amountToUiAmountForMintWithoutSimulation`.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  amountToUiAmountForMintWithoutSimulation,
  createInitializeInterestBearingMintInstruction,
  ExtensionType,
  TOKEN_2022_PROGRAM_ID,
} from "@solana/spl-token";
import {
  AddressLookupTableProgram,
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  NONCE_ACCOUNT_LENGTH,
  NonceAccount,
  PublicKey,
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from "@solana/web3.js";
import {
  fetchEncodedSysvarAccount,
  fetchJsonParsedSysvarAccount,
  getSysvarClockDecoder,
  getSysvarEpochRewardsDecoder,
  getSysvarEpochScheduleDecoder,
  getSysvarLastRestartSlotDecoder,
  getSysvarRentDecoder,
  getSysvarSlotHistoryDecoder,
  getSysvarStakeHistoryDecoder,
  SYSVAR_CLOCK_ADDRESS,
  SYSVAR_EPOCH_REWARDS_ADDRESS,
  SYSVAR_EPOCH_SCHEDULE_ADDRESS,
  SYSVAR_LAST_RESTART_SLOT_ADDRESS,
  SYSVAR_RECENT_BLOCKHASHES_ADDRESS,
  SYSVAR_RENT_ADDRESS,
  SYSVAR_SLOT_HASHES_ADDRESS,
  SYSVAR_SLOT_HISTORY_ADDRESS,
  SYSVAR_STAKE_HISTORY_ADDRESS,
} from "@solana/sysvars";
import {
  address,
  fetchEncodedAccount,
  getAddressDecoder,
  getArrayDecoder,
  getBase64Decoder,
  getStructDecoder,
  getU64Decoder,
  type Address,
  type Decoder,
} from "@solana/kit";

import { decodeAddressLookupTableInstruction } from "../rpc/address-lookup-table-instruction.js";
import {
  kitClients,
  rpcCall,
  sleep,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { fundedPayer } from "./support/web3-ledger.js";
import { token2022Mint } from "./support/web3-token-2022.js";

/**
 * A bincode Vec: a u64 length, then the items. @solana/sysvars 8.4's own SlotHashes and
 * RecentBlockhashes decoders read a u32 length there, which shifts every field after it; their
 * items are decoded with kit's codecs and this length instead.
 */
const bincodeVec = <T extends object>(item: Decoder<T>) => getArrayDecoder(item, { size: getU64Decoder() });

/** Each sysvar: the validator's type name, and its fields from kit's decoding of the bytes. */
const SYSVARS = [
  {
    address: SYSVAR_CLOCK_ADDRESS,
    type: "clock",
    expected: (bytes: Uint8Array) => {
      const clock = getSysvarClockDecoder().decode(bytes);
      return {
        slot: Number(clock.slot),
        epoch: Number(clock.epoch),
        epochStartTimestamp: Number(clock.epochStartTimestamp),
        leaderScheduleEpoch: Number(clock.leaderScheduleEpoch),
        unixTimestamp: Number(clock.unixTimestamp),
      };
    },
  },
  {
    address: SYSVAR_EPOCH_SCHEDULE_ADDRESS,
    type: "epochSchedule",
    expected: (bytes: Uint8Array) => {
      const schedule = getSysvarEpochScheduleDecoder().decode(bytes);
      return {
        slotsPerEpoch: Number(schedule.slotsPerEpoch),
        leaderScheduleSlotOffset: Number(schedule.leaderScheduleSlotOffset),
        warmup: schedule.warmup,
        firstNormalEpoch: Number(schedule.firstNormalEpoch),
        firstNormalSlot: Number(schedule.firstNormalSlot),
      };
    },
  },
  {
    address: SYSVAR_RENT_ADDRESS,
    type: "rent",
    expected: (bytes: Uint8Array) => {
      const rent = getSysvarRentDecoder().decode(bytes);
      return {
        lamportsPerByteYear: rent.lamportsPerByteYear.toString(),
        exemptionThreshold: rent.exemptionThreshold,
        burnPercent: rent.burnPercent,
      };
    },
  },
  {
    address: SYSVAR_SLOT_HASHES_ADDRESS,
    type: "slotHashes",
    expected: (bytes: Uint8Array) =>
      bincodeVec(
        getStructDecoder([
          ["slot", getU64Decoder()],
          ["hash", getAddressDecoder()],
        ]),
      )
        .decode(bytes)
        .map(({ slot, hash }) => ({ slot: Number(slot), hash })),
  },
  {
    address: SYSVAR_RECENT_BLOCKHASHES_ADDRESS,
    type: "recentBlockhashes",
    expected: (bytes: Uint8Array) =>
      bincodeVec(
        getStructDecoder([
          ["blockhash", getAddressDecoder()],
          ["lamportsPerSignature", getU64Decoder()],
        ]),
      )
        .decode(bytes)
        .map(({ blockhash, lamportsPerSignature }) => ({
          blockhash,
          feeCalculator: { lamportsPerSignature: lamportsPerSignature.toString() },
        })),
  },
  {
    address: SYSVAR_STAKE_HISTORY_ADDRESS,
    type: "stakeHistory",
    expected: (bytes: Uint8Array) =>
      getSysvarStakeHistoryDecoder()
        .decode(bytes)
        .map(({ epoch, stakeHistory }) => ({
          epoch: Number(epoch),
          stakeHistory: {
            effective: Number(stakeHistory.effective),
            activating: Number(stakeHistory.activating),
            deactivating: Number(stakeHistory.deactivating),
          },
        })),
  },
  {
    address: SYSVAR_LAST_RESTART_SLOT_ADDRESS,
    type: "lastRestartSlot",
    expected: (bytes: Uint8Array) => ({
      lastRestartSlot: Number(getSysvarLastRestartSlotDecoder().decode(bytes).lastRestartSlot),
    }),
  },
  {
    address: SYSVAR_EPOCH_REWARDS_ADDRESS,
    type: "epochRewards",
    expected: (bytes: Uint8Array) => {
      const rewards = getSysvarEpochRewardsDecoder().decode(bytes);
      return {
        distributionStartingBlockHeight: Number(rewards.distributionStartingBlockHeight),
        numPartitions: Number(rewards.numPartitions),
        parentBlockhash: rewards.parentBlockhash,
        totalPoints: rewards.totalPoints.toString(),
        totalRewards: rewards.totalRewards.toString(),
        distributedRewards: rewards.distributedRewards.toString(),
        active: rewards.active,
      };
    },
  },
  {
    address: SYSVAR_SLOT_HISTORY_ADDRESS,
    type: "slotHistory",
    expected: (bytes: Uint8Array) => {
      const history = getSysvarSlotHistoryDecoder().decode(bytes);
      const bits = history.bits
        .map((word) => word.toString(2).padStart(64, "0").split("").reverse().join(""))
        .join("");
      return { nextSlot: Number(history.nextSlot), bits };
    },
  },
];

describe("parsed accounts", () => {
  let ledger: LedgerUnderTest;

  before(async () => {
    // Long slots: no sysvar changes between the two reads of each
    ledger = await startLedgerProcess({ slotMs: 60_000 });
  });
  after(async () => {
    await sleep(700); // web3.js closes its idle socket 500 ms after the last subscription
    await ledger.dispose();
  });

  test("each sysvar in jsonParsed is a validator's type and fields, matching kit's decoding of its bytes", async () => {
    const { rpc } = kitClients(ledger);
    for (const { address, type, expected } of SYSVARS) {
      // When the account is read in jsonParsed and in base64
      const reply = await rpcCall(ledger.rpcUrl, "getAccountInfo", [address, { encoding: "jsonParsed" }]);
      const encoded = await fetchEncodedSysvarAccount(rpc, address);
      assert.ok(encoded.exists, address);

      // Then the parsed form is the validator's, with the values kit decodes from the bytes
      const value = (reply.result as { value: { data: unknown; owner: string } }).value;
      assert.equal(value.owner, "Sysvar1111111111111111111111111111111111111");
      assert.deepEqual(
        value.data,
        { program: "sysvar", parsed: { type, info: expected(encoded.data) }, space: encoded.data.length },
        type,
      );

      // And kit's own jsonParsed fetch gets a parsed account, not the bytes
      const parsed = await fetchJsonParsedSysvarAccount(rpc, address);
      assert.ok(parsed.exists && !(parsed.data instanceof Uint8Array), type);
    }
  });

  test("a durable nonce account in jsonParsed is a validator's, matching web3.js's NonceAccount", async () => {
    // Given a nonce account created with web3.js
    const connection = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl });
    const payer = await fundedPayer(connection);
    const nonce = Keypair.generate();
    await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.createNonceAccount({
          fromPubkey: payer.publicKey,
          noncePubkey: nonce.publicKey,
          authorizedPubkey: payer.publicKey,
          lamports: await connection.getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH),
        }),
      ),
      [payer, nonce],
    );

    // When it is read in jsonParsed and in base64
    const parsed = (await connection.getParsedAccountInfo(nonce.publicKey)).value?.data;
    const raw = await connection.getAccountInfo(nonce.publicKey);
    const state = NonceAccount.fromAccountData(raw!.data);

    // Then the parsed form holds what web3.js reads from the bytes
    assert.deepEqual(parsed, {
      program: "nonce",
      parsed: {
        type: "initialized",
        info: {
          authority: state.authorizedPubkey.toBase58(),
          blockhash: state.nonce,
          feeCalculator: { lamportsPerSignature: String(state.feeCalculator.lamportsPerSignature) },
        },
      },
      space: NONCE_ACCOUNT_LENGTH,
    });
    assert.equal(state.authorizedPubkey.toBase58(), payer.publicKey.toBase58());
  });

  test("the ABAS program and its program data in jsonParsed are the upgradeable loader's, as a validator shows them", async () => {
    // When the program account and then its program data are read in jsonParsed
    const { rpc } = kitClients(ledger);
    const program = await rpcCall(ledger.rpcUrl, "getAccountInfo", [
      ledger.programId,
      { encoding: "jsonParsed" },
    ]);
    const programData = (program.result as { value: { data: { parsed: { info: { programData: string } } } } })
      .value.data.parsed.info.programData;
    const parsedData = await rpcCall(ledger.rpcUrl, "getAccountInfo", [
      programData,
      { encoding: "jsonParsed" },
    ]);
    const bytes = await fetchEncodedAccount(rpc, address(programData));
    assert.ok(bytes.exists);

    // Then the program names the program data the loader derives for it
    const [derived] = PublicKey.findProgramAddressSync(
      [new PublicKey(ledger.programId).toBuffer()],
      new PublicKey("BPFLoaderUpgradeab1e11111111111111111111111"),
    );
    assert.deepEqual((program.result as { value: { data: unknown } }).value.data, {
      program: "bpf-upgradeable-loader",
      parsed: { type: "program", info: { programData: derived.toBase58() } },
      space: 36,
    });

    // And the program data holds its slot, its authority and the code after the 45-byte state
    const view = new DataView(bytes.data.buffer, bytes.data.byteOffset);
    const authority = bytes.data[12] === 1 ? getAddressDecoder().decode(bytes.data.subarray(13, 45)) : null;
    assert.deepEqual((parsedData.result as { value: { data: unknown } }).value.data, {
      program: "bpf-upgradeable-loader",
      parsed: {
        type: "programData",
        info: {
          slot: Number(view.getBigUint64(4, true)),
          authority,
          data: [getBase64Decoder().decode(bytes.data.subarray(authority === null ? 13 : 45)), "base64"],
        },
      },
      space: bytes.data.length,
    });
  });

  test("spl-token's client-side UI amount, which reads the parsed Clock, works against the ledger", async () => {
    // Given an interest-bearing Token-2022 mint
    const connection = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl });
    const payer = await fundedPayer(connection);
    const mint = await token2022Mint(
      connection,
      payer,
      ExtensionType.InterestBearingConfig,
      (mint) =>
        createInitializeInterestBearingMintInstruction(mint, payer.publicKey, 500, TOKEN_2022_PROGRAM_ID),
      2,
    );

    // When spl-token computes a UI amount itself, from the mint and the parsed Clock
    const ui = await amountToUiAmountForMintWithoutSimulation(connection, mint, 12_345n);

    // Then it gets one (it throws "Failed to parse sysvar clock" where the Clock is not parsed)
    assert.equal(ui, "123.45");
  });
});

describe("address lookup tables", () => {
  let ledger: LedgerUnderTest;

  before(async () => {
    ledger = await startLedgerProcess();
  });
  after(async () => {
    await sleep(700); // web3.js closes its idle socket 500 ms after the last subscription
    await ledger.dispose();
  });

  test("a table created with the slot getSlot returns serves a v0 transaction, and reads in jsonParsed as a validator shows it", async () => {
    // Given a lookup table created and extended with web3.js, naming the slot the ledger just gave
    const connection = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl });
    const payer = await fundedPayer(connection, 2);
    const recipients = [Keypair.generate().publicKey, Keypair.generate().publicKey];
    const [create, table] = AddressLookupTableProgram.createLookupTable({
      authority: payer.publicKey,
      payer: payer.publicKey,
      recentSlot: await connection.getSlot(),
    });
    const extend = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table,
      authority: payer.publicKey,
      payer: payer.publicKey,
      addresses: recipients,
    });
    const created = await sendAndConfirmTransaction(connection, new Transaction().add(create, extend), [
      payer,
    ]);
    await sleep(1_000); // addresses added in a slot are usable from the next one

    // When a v0 transaction pays the first of its addresses through the table
    const lookupTable = (await connection.getAddressLookupTable(table)).value!;
    const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
    const message = new TransactionMessage({
      payerKey: payer.publicKey,
      recentBlockhash: blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: payer.publicKey,
          toPubkey: recipients[0]!,
          lamports: LAMPORTS_PER_SOL / 2,
        }),
      ],
    }).compileToV0Message([lookupTable]);
    const transaction = new VersionedTransaction(message);
    transaction.sign([payer]);
    const signature = await connection.sendTransaction(transaction);
    await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight });

    // Then the transfer landed, its address loaded from the table
    assert.equal(message.addressTableLookups.length, 1);
    assert.equal(await connection.getBalance(recipients[0]!), LAMPORTS_PER_SOL / 2);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    assert.deepEqual(
      landed?.meta?.loadedAddresses?.writable.map((key) => key.toBase58()),
      [recipients[0]!.toBase58()],
    );

    // And the table in jsonParsed holds what web3.js reads from its bytes
    const parsed = (await connection.getParsedAccountInfo(table)).value?.data;
    assert.deepEqual(parsed, {
      program: "address-lookup-table",
      parsed: {
        type: "lookupTable",
        info: {
          deactivationSlot: lookupTable.state.deactivationSlot.toString(),
          lastExtendedSlot: String(lookupTable.state.lastExtendedSlot),
          lastExtendedSlotStartIndex: lookupTable.state.lastExtendedSlotStartIndex,
          authority: payer.publicKey.toBase58(),
          addresses: recipients.map((key) => key.toBase58()),
        },
      },
      space: 56 + 2 * 32,
    });
    assert.equal(lookupTable.state.deactivationSlot, 2n ** 64n - 1n);

    // And the instructions that created, extended and then deactivated it read in jsonParsed as a
    // validator shows them
    const deactivated = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        AddressLookupTableProgram.deactivateLookupTable({ lookupTable: table, authority: payer.publicKey }),
      ),
      [payer],
    );
    const instructionsOf = async (signature: string) =>
      (await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.transaction
        .message.instructions;
    const [tableAddress, authority] = [table.toBase58(), payer.publicKey.toBase58()];
    const programOf = { program: "address-lookup-table", programId: AddressLookupTableProgram.programId };
    assert.deepEqual(await instructionsOf(created), [
      {
        ...programOf,
        parsed: {
          type: "createLookupTable",
          info: {
            lookupTableAccount: tableAddress,
            lookupTableAuthority: authority,
            payerAccount: authority,
            systemProgram: SystemProgram.programId.toBase58(),
            recentSlot: Number(create.data.readBigUInt64LE(4)),
            bumpSeed: create.data[12],
          },
        },
        stackHeight: 1,
      },
      {
        ...programOf,
        parsed: {
          type: "extendLookupTable",
          info: {
            lookupTableAccount: tableAddress,
            lookupTableAuthority: authority,
            payerAccount: authority,
            systemProgram: SystemProgram.programId.toBase58(),
            newAddresses: recipients.map((key) => key.toBase58()),
          },
        },
        stackHeight: 1,
      },
    ]);
    assert.deepEqual(await instructionsOf(deactivated), [
      {
        ...programOf,
        parsed: {
          type: "deactivateLookupTable",
          info: { lookupTableAccount: tableAddress, lookupTableAuthority: authority },
        },
        stackHeight: 1,
      },
    ]);
  });

  test("freeze, close and a payer-less extend decode as a validator's parser does; malformed ones stay undecoded", () => {
    // Given web3.js's freeze, close and payer-less extend instructions
    const [table, authority, recipient, added] = [0, 1, 2, 3].map(() => Keypair.generate().publicKey);
    const decode = (instruction: TransactionInstruction) =>
      decodeAddressLookupTableInstruction(
        instruction.keys.map((key) => key.pubkey.toBase58() as Address),
        Uint8Array.from(instruction.data),
      );
    const base = { lookupTableAccount: table!.toBase58(), lookupTableAuthority: authority!.toBase58() };

    // Then each decodes with a validator's names
    assert.deepEqual(
      decode(AddressLookupTableProgram.freezeLookupTable({ lookupTable: table!, authority: authority! })),
      { type: "freezeLookupTable", info: base },
    );
    assert.deepEqual(
      decode(
        AddressLookupTableProgram.closeLookupTable({
          lookupTable: table!,
          authority: authority!,
          recipient: recipient!,
        }),
      ),
      { type: "closeLookupTable", info: { ...base, recipient: recipient!.toBase58() } },
    );
    const extend = AddressLookupTableProgram.extendLookupTable({
      lookupTable: table!,
      authority: authority!,
      addresses: [added!],
    });
    assert.deepEqual(decode(extend), {
      type: "extendLookupTable",
      info: { ...base, newAddresses: [added!.toBase58()] },
    });

    // And data cut short, an unknown tag or too few accounts are left undecoded
    const cut = new TransactionInstruction({
      ...extend,
      data: extend.data.subarray(0, extend.data.length - 1),
    });
    const unknown = new TransactionInstruction({ ...extend, data: Buffer.from([5, 0, 0, 0]) });
    const fewer = new TransactionInstruction({ ...extend, keys: extend.keys.slice(0, 1) });
    assert.deepEqual([decode(cut), decode(unknown), decode(fewer)], [undefined, undefined, undefined]);
  });
});
