/**
 * `jsonParsed` decoding of Token-2022's extension instructions, and of the token metadata and token
 * group interface instructions it implements, in getTransaction, in a validator's shape: transactions built with @solana/spl-token's own instruction builders, run by the
 * Token-2022 program on the ledger, and read back with @solana/web3.js's getParsedTransaction.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  AccountState,
  createAssociatedTokenAccountIdempotent,
  createCreateNativeMintInstruction,
  createDisableCpiGuardInstruction,
  createDisableRequiredMemoTransfersInstruction,
  createEnableCpiGuardInstruction,
  createEnableRequiredMemoTransfersInstruction,
  createHarvestWithheldTokensToMintInstruction,
  createInitializeDefaultAccountStateInstruction,
  createInitializeGroupMemberPointerInstruction,
  createInitializeGroupPointerInstruction,
  createInitializeInterestBearingMintInstruction,
  createInitializeMetadataPointerInstruction,
  createInitializeMintCloseAuthorityInstruction,
  createInitializeNonTransferableMintInstruction,
  createInitializePausableConfigInstruction,
  createInitializePermanentDelegateInstruction,
  createInitializeScaledUiAmountConfigInstruction,
  createInitializeTransferFeeConfigInstruction,
  createInitializeTransferHookInstruction,
  createPauseInstruction,
  createReallocateInstruction,
  createResumeInstruction,
  createSetTransferFeeInstruction,
  createTransferCheckedWithFeeInstruction,
  createUpdateDefaultAccountStateInstruction,
  createUpdateGroupPointerInstruction,
  createUpdateMetadataPointerInstruction,
  createUpdateMultiplierDataInstruction,
  createUpdateRateInterestBearingMintInstruction,
  createUpdateTransferHookInstruction,
  createWithdrawWithheldTokensFromAccountsInstruction,
  createWithdrawWithheldTokensFromMintInstruction,
  ExtensionType,
  mintTo,
  NATIVE_MINT_2022,
  TOKEN_2022_PROGRAM_ID,
  tokenGroupInitializeGroupWithRentTransfer,
  tokenGroupMemberInitializeWithRentTransfer,
  tokenGroupUpdateGroupAuthority,
  tokenGroupUpdateGroupMaxSize,
  tokenMetadataInitializeWithRentTransfer,
  tokenMetadataRemoveKey,
  tokenMetadataUpdateAuthority,
  tokenMetadataUpdateFieldWithRentTransfer,
} from "@solana/spl-token";
import { createEmitInstruction } from "@solana/spl-token-metadata";
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  sendAndConfirmTransaction,
  SystemProgram,
  Transaction,
  TransactionInstruction,
  type Signer,
} from "@solana/web3.js";
import { getBase58Decoder, type Address } from "@solana/kit";

import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";
import { rustFloatString } from "../rpc/token-extension-instruction.js";
import { decodeTokenInstruction } from "../rpc/token-instruction.js";
import { landWithoutPreflight, readShown, type Shown } from "./support/parsed-instructions.js";
import { token2022MintWith } from "./support/web3-token-2022.js";

const TOKEN_2022 = TOKEN_2022_PROGRAM_ID.toBase58();
const SYSTEM_PROGRAM = SystemProgram.programId.toBase58();

/** An spl-token instruction as shown. */
const token = (type: string, info: Record<string, unknown>): Shown => ({ program: "spl-token", type, info });

describe("jsonParsed Token-2022 extension instructions", () => {
  let web3: Web3Ledger;
  let connection: Connection;
  let payer: Keypair;

  /** Sends `instructions` signed by the payer and `signers`; the instructions as shown. */
  async function sendAndRead(
    instructions: TransactionInstruction[],
    signers: Signer[] = [],
  ): Promise<Shown[]> {
    const signature = await sendAndConfirmTransaction(connection, new Transaction().add(...instructions), [
      payer,
      ...signers,
    ]);
    return (await readShown(connection, signature)).top;
  }

  before(async () => {
    web3 = await startWeb3Ledger();
    ({ connection, payer } = web3);
  });
  after(async () => {
    await web3.stop();
  });

  test("a mint's extensions, fees, pointers, hook and pause, initialized, used and updated", async () => {
    const owner = payer.publicKey;
    const withdrawer = Keypair.generate();
    const delegate = Keypair.generate().publicKey;
    const member = Keypair.generate().publicKey;
    // Given a mint with eight extensions, each initialized by spl-token's own instruction
    const { mint, signature } = await token2022MintWith(connection, payer, {
      extensions: [
        ExtensionType.MintCloseAuthority,
        ExtensionType.TransferFeeConfig,
        ExtensionType.PermanentDelegate,
        ExtensionType.TransferHook,
        ExtensionType.MetadataPointer,
        ExtensionType.GroupPointer,
        ExtensionType.GroupMemberPointer,
        ExtensionType.PausableConfig,
      ],
      initializeExtensions: (address) => [
        createInitializeMintCloseAuthorityInstruction(address, owner, TOKEN_2022_PROGRAM_ID),
        createInitializeTransferFeeConfigInstruction(
          address,
          owner,
          withdrawer.publicKey,
          50,
          1_000n,
          TOKEN_2022_PROGRAM_ID,
        ),
        createInitializePermanentDelegateInstruction(address, delegate, TOKEN_2022_PROGRAM_ID),
        createInitializeTransferHookInstruction(address, owner, PublicKey.default, TOKEN_2022_PROGRAM_ID),
        createInitializeMetadataPointerInstruction(address, owner, address, TOKEN_2022_PROGRAM_ID),
        createInitializeGroupPointerInstruction(address, owner, null, TOKEN_2022_PROGRAM_ID),
        createInitializeGroupMemberPointerInstruction(address, null, member, TOKEN_2022_PROGRAM_ID),
        createInitializePausableConfigInstruction(address, owner, TOKEN_2022_PROGRAM_ID),
      ],
      decimals: 2,
    });
    const m = mint.toBase58();
    const o = owner.toBase58();

    // Then each initialization is shown as a validator shows it: a key that is none left out,
    // or null where the validator writes it
    const created = (await readShown(connection, signature)).top;
    assert.deepEqual(created.slice(1, 9), [
      token("initializeMintCloseAuthority", { mint: m, newAuthority: o }),
      token("initializeTransferFeeConfig", {
        mint: m,
        transferFeeConfigAuthority: o,
        withdrawWithheldAuthority: withdrawer.publicKey.toBase58(),
        transferFeeBasisPoints: 50,
        maximumFee: 1000,
      }),
      token("initializePermanentDelegate", { mint: m, delegate: delegate.toBase58() }),
      token("initializeTransferHook", { mint: m, authority: o }),
      token("initializeMetadataPointer", { mint: m, authority: o, metadataAddress: m }),
      token("initializeGroupPointer", { mint: m, authority: o }),
      token("initializeGroupMemberPointer", { mint: m, memberAddress: member.toBase58() }),
      token("initializePausableConfig", { mint: m, authority: o }),
    ]);

    // When their authority updates the fee, the hook, the pointers, and pauses and resumes the mint
    const hookProgram = Keypair.generate().publicKey;
    const group = Keypair.generate().publicKey;
    const updated = await sendAndRead([
      createSetTransferFeeInstruction(mint, owner, [], 100, 5_000n, TOKEN_2022_PROGRAM_ID),
      createUpdateTransferHookInstruction(mint, owner, hookProgram, [], TOKEN_2022_PROGRAM_ID),
      createUpdateMetadataPointerInstruction(mint, owner, null, [], TOKEN_2022_PROGRAM_ID),
      createUpdateGroupPointerInstruction(mint, owner, group, [], TOKEN_2022_PROGRAM_ID),
      createPauseInstruction(mint, owner, [], TOKEN_2022_PROGRAM_ID),
      createResumeInstruction(mint, owner, [], TOKEN_2022_PROGRAM_ID),
      createUpdateTransferHookInstruction(mint, owner, PublicKey.default, [], TOKEN_2022_PROGRAM_ID),
    ]);
    assert.deepEqual(updated, [
      token("setTransferFee", {
        mint: m,
        transferFeeBasisPoints: 100,
        maximumFee: 5000,
        transferFeeConfigAuthority: o,
      }),
      token("updateTransferHook", { mint: m, programId: hookProgram.toBase58(), authority: o }),
      token("updateMetadataPointer", { mint: m, authority: o }),
      token("updateGroupPointer", { mint: m, groupAddress: group.toBase58(), authority: o }),
      token("pause", { mint: m, authority: o }),
      token("resume", { mint: m, authority: o }),
      token("updateTransferHook", { mint: m, authority: o }),
    ]);

    // When tokens move with a fee, and the withheld fees are harvested and withdrawn
    const alice = Keypair.generate();
    const bob = Keypair.generate();
    const aliceAccount = await createAssociatedTokenAccountIdempotent(
      connection,
      payer,
      mint,
      alice.publicKey,
      {},
      TOKEN_2022_PROGRAM_ID,
    );
    const bobAccount = await createAssociatedTokenAccountIdempotent(
      connection,
      payer,
      mint,
      bob.publicKey,
      {},
      TOKEN_2022_PROGRAM_ID,
    );
    await mintTo(
      connection,
      payer,
      mint,
      aliceAccount,
      owner,
      100_000n,
      [],
      undefined,
      TOKEN_2022_PROGRAM_ID,
    );
    const [a, b, w] = [aliceAccount.toBase58(), bobAccount.toBase58(), withdrawer.publicKey.toBase58()];
    // The fee set above applies two epochs later: until then 0.5% of 200.00, 1.00 (under the 10.00 maximum)
    const transfer = () =>
      createTransferCheckedWithFeeInstruction(
        aliceAccount,
        mint,
        bobAccount,
        alice.publicKey,
        20_000n,
        2,
        100n,
        [],
        TOKEN_2022_PROGRAM_ID,
      );
    const fees = await sendAndRead(
      [
        transfer(),
        createWithdrawWithheldTokensFromAccountsInstruction(
          mint,
          aliceAccount,
          withdrawer.publicKey,
          [],
          [bobAccount],
          TOKEN_2022_PROGRAM_ID,
        ),
        transfer(),
        createHarvestWithheldTokensToMintInstruction(mint, [bobAccount, aliceAccount], TOKEN_2022_PROGRAM_ID),
        createWithdrawWithheldTokensFromMintInstruction(
          mint,
          aliceAccount,
          withdrawer.publicKey,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
      ],
      [alice, withdrawer],
    );
    const amount = (raw: string, ui: number, uiString: string) => ({
      amount: raw,
      decimals: 2,
      uiAmount: ui,
      uiAmountString: uiString,
    });
    const transferShown = token("transferCheckedWithFee", {
      source: a,
      mint: m,
      destination: b,
      tokenAmount: amount("20000", 200, "200"),
      feeAmount: amount("100", 1, "1"),
      authority: alice.publicKey.toBase58(),
    });
    assert.deepEqual(fees, [
      transferShown,
      token("withdrawWithheldTokensFromAccounts", {
        mint: m,
        feeRecipient: a,
        sourceAccounts: [b],
        withdrawWithheldAuthority: w,
      }),
      transferShown,
      token("harvestWithheldTokensToMint", { mint: m, sourceAccounts: [b, a] }),
      token("withdrawWithheldTokensFromMint", { mint: m, feeRecipient: a, withdrawWithheldAuthority: w }),
    ]);
    // Then the fees came back to Alice: 1,000.00 minted, 400.00 sent, 2.00 of fees withdrawn
    assert.equal((await connection.getTokenAccountBalance(aliceAccount)).value.amount, "60200");

    // When Alice's account grows for two more extensions, and she turns them on and off
    const settings = await sendAndRead(
      [
        createReallocateInstruction(
          aliceAccount,
          owner,
          [ExtensionType.MemoTransfer, ExtensionType.CpiGuard],
          alice.publicKey,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
        createEnableRequiredMemoTransfersInstruction(
          aliceAccount,
          alice.publicKey,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
        createEnableCpiGuardInstruction(aliceAccount, alice.publicKey, [], TOKEN_2022_PROGRAM_ID),
        createDisableCpiGuardInstruction(aliceAccount, alice.publicKey, [], TOKEN_2022_PROGRAM_ID),
        createDisableRequiredMemoTransfersInstruction(
          aliceAccount,
          alice.publicKey,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
      ],
      [alice],
    );
    const aliceOwner = { account: a, owner: alice.publicKey.toBase58() };
    assert.deepEqual(settings, [
      token("reallocate", {
        account: a,
        payer: o,
        systemProgram: SYSTEM_PROGRAM,
        extensionTypes: ["memoTransfer", "cpiGuard"],
        owner: alice.publicKey.toBase58(),
      }),
      token("enableRequiredMemoTransfers", aliceOwner),
      token("enableCpiGuard", aliceOwner),
      token("disableCpiGuard", aliceOwner),
      token("disableRequiredMemoTransfers", aliceOwner),
    ]);

    // When lamports beyond rent are sent to the mint and its authority withdraws them (spl-token
    // has no builder for WithdrawExcessLamports: its tag and three accounts, by hand)
    const withdrawn = await sendAndRead([
      SystemProgram.transfer({ fromPubkey: owner, toPubkey: mint, lamports: LAMPORTS_PER_SOL }),
      new TransactionInstruction({
        programId: TOKEN_2022_PROGRAM_ID,
        keys: [
          { pubkey: mint, isSigner: false, isWritable: true },
          { pubkey: owner, isSigner: false, isWritable: true },
          { pubkey: owner, isSigner: true, isWritable: false },
        ],
        data: Buffer.of(38),
      }),
    ]);
    assert.deepEqual(
      withdrawn[1],
      token("withdrawExcessLamports", { source: m, destination: o, authority: o }),
    );
  });

  test("interest-bearing, default-frozen, non-transferable and scaled-UI-amount mints", async () => {
    const owner = payer.publicKey;
    const o = owner.toBase58();
    // Given a non-transferable, interest-bearing mint whose new accounts start frozen
    const interest = await token2022MintWith(connection, payer, {
      extensions: [
        ExtensionType.InterestBearingConfig,
        ExtensionType.DefaultAccountState,
        ExtensionType.NonTransferable,
      ],
      initializeExtensions: (address) => [
        createInitializeInterestBearingMintInstruction(address, owner, 500, TOKEN_2022_PROGRAM_ID),
        createInitializeDefaultAccountStateInstruction(address, AccountState.Frozen, TOKEN_2022_PROGRAM_ID),
        createInitializeNonTransferableMintInstruction(address, TOKEN_2022_PROGRAM_ID),
      ],
      decimals: 6,
      freezeAuthority: owner,
    });
    const i = interest.mint.toBase58();
    assert.deepEqual((await readShown(connection, interest.signature)).top.slice(1, 4), [
      token("initializeInterestBearingConfig", { mint: i, rateAuthority: o, rate: 500 }),
      token("initializeDefaultAccountState", { mint: i, accountState: "frozen" }),
      token("initializeNonTransferableMint", { mint: i }),
    ]);
    // When the rate turns negative and new accounts start initialized
    assert.deepEqual(
      await sendAndRead([
        createUpdateRateInterestBearingMintInstruction(interest.mint, owner, -250, [], TOKEN_2022_PROGRAM_ID),
        createUpdateDefaultAccountStateInstruction(
          interest.mint,
          AccountState.Initialized,
          owner,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
      ]),
      [
        // spl-token's builder lists the rate authority twice; a validator's parser, which goes by
        // the number of accounts, shows the second as the signer of a multisig
        token("updateInterestBearingConfigRate", {
          mint: i,
          newRate: -250,
          multisigRateAuthority: o,
          signers: [o],
        }),
        token("updateDefaultAccountState", { mint: i, accountState: "initialized", freezeAuthority: o }),
      ],
    );

    // Given a pausable initialization without an authority, which the program refuses (it lands
    // failed): the authority is a plain key, so a validator shows the all-zero key as the System
    // program's address, not as null
    const unpausable = Keypair.generate().publicKey;
    const { signature: refused, err } = await landWithoutPreflight(
      connection,
      payer,
      new Transaction().add(
        createInitializePausableConfigInstruction(unpausable, null, TOKEN_2022_PROGRAM_ID),
      ),
    );
    assert.ok(err);
    assert.deepEqual((await readShown(connection, refused)).top, [
      token("initializePausableConfig", { mint: unpausable.toBase58(), authority: SYSTEM_PROGRAM }),
    ]);

    // Given a mint whose UI amounts are scaled by 1.5
    const scaled = await token2022MintWith(connection, payer, {
      extensions: [ExtensionType.ScaledUiAmountConfig],
      initializeExtensions: (address) => [
        createInitializeScaledUiAmountConfigInstruction(address, owner, 1.5, TOKEN_2022_PROGRAM_ID),
      ],
      decimals: 0,
    });
    const s = scaled.mint.toBase58();
    assert.deepEqual(
      (await readShown(connection, scaled.signature)).top[1],
      token("initializeScaledUiAmountConfig", { mint: s, authority: o, multiplier: "1.5" }),
    );
    // When the multiplier changes: the validator writes a float without exponent notation
    assert.deepEqual(
      await sendAndRead([
        createUpdateMultiplierDataInstruction(
          scaled.mint,
          owner,
          0.0000001,
          1_900_000_000n,
          [],
          TOKEN_2022_PROGRAM_ID,
        ),
      ]),
      [
        token("updateMultiplier", {
          mint: s,
          newMultiplier: "0.0000001",
          newMultiplierTimestamp: 1_900_000_000,
          authority: o,
        }),
      ],
    );
  });

  test("token metadata and token group instructions, as Token-2022 implements their interfaces", async () => {
    const owner = payer.publicKey;
    const o = owner.toBase58();
    /** A mint whose metadata, group or member data is in the mint itself, through its pointer. */
    const selfPointing = (
      extension: ExtensionType,
      pointer: typeof createInitializeMetadataPointerInstruction,
    ) =>
      token2022MintWith(connection, payer, {
        extensions: [extension],
        initializeExtensions: (address) => [pointer(address, owner, address, TOKEN_2022_PROGRAM_ID)],
        decimals: 0,
      });
    // The actions with rent transfer send one first when the account has to grow
    const last = async (signature: string): Promise<Shown> =>
      (await readShown(connection, signature)).top.at(-1)!;

    // Given a mint with its metadata in itself, when it is initialized, updated and emitted
    const { mint: metadataMint } = await selfPointing(
      ExtensionType.MetadataPointer,
      createInitializeMetadataPointerInstruction,
    );
    const m = metadataMint.toBase58();
    const initialized = await tokenMetadataInitializeWithRentTransfer(
      connection,
      payer,
      metadataMint,
      owner,
      payer,
      "Agent receipts",
      "RCPT",
      "https://example.com/rcpt.json",
    );
    const uri = await tokenMetadataUpdateFieldWithRentTransfer(
      connection,
      payer,
      metadataMint,
      payer,
      "uri",
      "https://example.com/v2.json",
    );
    const custom = await tokenMetadataUpdateFieldWithRentTransfer(
      connection,
      payer,
      metadataMint,
      payer,
      "agent",
      "planner",
    );
    const removed = await tokenMetadataRemoveKey(connection, payer, metadataMint, payer, "agent", false);
    const emitted = await sendAndRead([
      createEmitInstruction({ programId: TOKEN_2022_PROGRAM_ID, metadata: metadataMint, start: 1n }),
      createEmitInstruction({ programId: TOKEN_2022_PROGRAM_ID, metadata: metadataMint }),
    ]);
    const handedOver = await tokenMetadataUpdateAuthority(connection, payer, metadataMint, payer, null);
    const byAuthority = { metadata: m, updateAuthority: o };
    assert.deepEqual(
      [
        await last(initialized),
        await last(uri),
        await last(custom),
        await last(removed),
        ...emitted,
        await last(handedOver),
      ],
      [
        token("initializeTokenMetadata", {
          metadata: m,
          updateAuthority: o,
          mint: m,
          mintAuthority: o,
          name: "Agent receipts",
          symbol: "RCPT",
          uri: "https://example.com/rcpt.json",
        }),
        token("updateTokenMetadataField", {
          ...byAuthority,
          field: "uri",
          value: "https://example.com/v2.json",
        }),
        token("updateTokenMetadataField", { ...byAuthority, field: "agent", value: "planner" }),
        token("removeTokenMetadataKey", { ...byAuthority, key: "agent", idempotent: false }),
        token("emitTokenMetadata", { metadata: m, start: 1 }),
        token("emitTokenMetadata", { metadata: m }),
        token("updateTokenMetadataAuthority", { ...byAuthority, newAuthority: null }),
      ],
    );

    // Given a group mint and a member mint, each holding its own data
    const { mint: groupMint } = await selfPointing(
      ExtensionType.GroupPointer,
      createInitializeGroupPointerInstruction,
    );
    const { mint: memberMint } = await selfPointing(
      ExtensionType.GroupMemberPointer,
      createInitializeGroupMemberPointerInstruction,
    );
    const [g, member] = [groupMint.toBase58(), memberMint.toBase58()];
    // When the group is made, a member joins, and the group's size and authority change
    const group = await tokenGroupInitializeGroupWithRentTransfer(
      connection,
      payer,
      groupMint,
      payer,
      owner,
      2n,
    );
    const joined = await tokenGroupMemberInitializeWithRentTransfer(
      connection,
      payer,
      memberMint,
      payer,
      groupMint,
      owner,
    );
    const resized = await tokenGroupUpdateGroupMaxSize(connection, payer, groupMint, payer, 5n);
    const released = await tokenGroupUpdateGroupAuthority(connection, payer, groupMint, payer, null);
    assert.deepEqual(
      [await last(group), await last(joined), await last(resized), await last(released)],
      [
        token("initializeTokenGroup", {
          group: g,
          maxSize: 2,
          mint: g,
          mintAuthority: o,
          updateAuthority: o,
        }),
        token("initializeTokenGroupMember", {
          member,
          memberMint: member,
          memberMintAuthority: o,
          group: g,
          groupUpdateAuthority: o,
        }),
        token("updateTokenGroupMaxSize", { group: g, maxSize: 5, updateAuthority: o }),
        token("updateTokenGroupAuthority", { group: g, updateAuthority: o, newAuthority: null }),
      ],
    );
  });

  test("createNativeMint, and an extension instruction the parser refuses, shown partially decoded", async () => {
    // Given a ledger without Token-2022's native mint
    assert.equal(await connection.getAccountInfo(NATIVE_MINT_2022), null);
    // When it is created
    const [created] = await sendAndRead([
      createCreateNativeMintInstruction(payer.publicKey, NATIVE_MINT_2022, TOKEN_2022_PROGRAM_ID),
    ]);
    assert.deepEqual(
      created,
      token("createNativeMint", {
        payer: payer.publicKey.toBase58(),
        nativeMint: NATIVE_MINT_2022.toBase58(),
        systemProgram: SYSTEM_PROGRAM,
      }),
    );
    assert.ok(await connection.getAccountInfo(NATIVE_MINT_2022));

    // Given an interest-bearing initialize cut short: it fails, but lands
    const data = Uint8Array.of(33, 0, 1, 2);
    const transaction = new Transaction().add(
      new TransactionInstruction({
        programId: TOKEN_2022_PROGRAM_ID,
        keys: [{ pubkey: Keypair.generate().publicKey, isSigner: false, isWritable: true }],
        data: Buffer.from(data),
      }),
    );
    const { signature, err } = await landWithoutPreflight(connection, payer, transaction);
    assert.deepEqual(err, { InstructionError: [0, "InvalidInstructionData"] });

    // Then its data is shown as base58, under its program id
    assert.deepEqual((await readShown(connection, signature)).top, [
      { unparsed: TOKEN_2022, data: getBase58Decoder().decode(data) },
    ]);
  });
});

test("floats are written as Rust writes them: shortest digits, never an exponent", () => {
  assert.deepEqual(
    [1, 1.5, 0.1, 123.456, 1e-7, -2.5e-10, 1e21, 1.25e22, -0, Infinity, NaN].map(rustFloatString),
    [
      "1",
      "1.5",
      "0.1",
      "123.456",
      "0.0000001",
      "-0.00000000025",
      "1000000000000000000000",
      "12500000000000000000000",
      "-0",
      "inf",
      "NaN",
    ],
  );
});

test("an extension type added since the program on this ledger is named, as a validator names it", () => {
  // getAccountDataSize for a mint's account with the permissioned burn extension (type 28)
  const mint = Keypair.generate().publicKey.toBase58() as Address;
  assert.deepEqual(decodeTokenInstruction([mint], Uint8Array.of(21, 28, 0)), {
    type: "getAccountDataSize",
    info: { mint, extensionTypes: ["permissionedBurn"] },
  });
});
