/**
 * SPL Token and Token-2022 against the ledger, driven by @solana/spl-token over a
 * @solana/web3.js Connection and read back with web3.js's and @solana/kit's own calls:
 * getTokenAccountBalance, getTokenSupply, getTokenLargestAccounts, getTokenAccountsByOwner,
 * getTokenAccountsByDelegate, jsonParsed token accounts, amounts of mints whose UI amount moves
 * with time (against the Token-2022 program's own AmountToUiAmount), and the validator's refusals.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  amountToUiAmount,
  approveChecked,
  createAccount,
  createAssociatedTokenAccount,
  createInitializeInterestBearingMintInstruction,
  createInitializeScaledUiAmountConfigInstruction,
  createMint,
  ExtensionType,
  getAccount,
  mintTo,
  revoke,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  transferChecked,
  unpackAccount,
} from "@solana/spl-token";
import { Connection, Keypair, LAMPORTS_PER_SOL, PublicKey } from "@solana/web3.js";
import { address } from "@solana/kit";

import { spawnLedgerProcess } from "../index.js";
import {
  kitClients,
  rpcCall,
  sleep,
  temporaryDataDir,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";
import { token2022Mint } from "./support/web3-token-2022.js";

const TOKEN_PROGRAM = address(TOKEN_PROGRAM_ID.toBase58());
const TOKEN_2022_PROGRAM = address(TOKEN_2022_PROGRAM_ID.toBase58());

describe("token methods", () => {
  let web3: Web3Ledger;
  let ledger: LedgerUnderTest;
  let connection: Connection;
  let clients: ReturnType<typeof kitClients>;
  let payer: Keypair;
  const alice = Keypair.generate();
  const bob = Keypair.generate();
  let mint: PublicKey;
  let aliceAccount: PublicKey;
  let bobAccount: PublicKey;
  let transferSignature: string;

  before(async () => {
    web3 = await startWeb3Ledger();
    ({ ledger, connection, payer } = web3);
    clients = kitClients(ledger);

    // A 6-decimal mint; Alice receives 1.5 tokens and sends 0.25 to Bob.
    mint = await createMint(connection, payer, payer.publicKey, null, 6);
    aliceAccount = await createAssociatedTokenAccount(connection, payer, mint, alice.publicKey);
    bobAccount = await createAssociatedTokenAccount(connection, payer, mint, bob.publicKey);
    await mintTo(connection, payer, mint, aliceAccount, payer, 1_500_000n);
    transferSignature = await transferChecked(
      connection,
      payer,
      aliceAccount,
      mint,
      bobAccount,
      alice,
      250_000n,
      6,
    );
  });
  after(async () => {
    await web3.stop();
  });

  test("getTokenAccountBalance and getTokenSupply give the validator's token amounts", async () => {
    const balance = await connection.getTokenAccountBalance(aliceAccount);
    assert.deepEqual(balance.value, {
      amount: "1250000",
      decimals: 6,
      uiAmount: 1.25,
      uiAmountString: "1.25",
    });
    const supply = await clients.rpc.getTokenSupply(address(mint.toBase58())).send();
    assert.deepEqual(supply.value, { amount: "1500000", decimals: 6, uiAmount: 1.5, uiAmountString: "1.5" });
    // spl-token's own reader of the account agrees
    assert.equal((await getAccount(connection, bobAccount)).amount, 250_000n);
  });

  test("getTransaction's metadata has the token balances before and after, as a validator records them", async () => {
    // When the transfer from Alice to Bob is read
    const transaction = await connection.getTransaction(transferSignature, {
      maxSupportedTransactionVersion: 0,
    });
    assert.ok(transaction);
    const keys = transaction.transaction.message.staticAccountKeys.map((key) => key.toBase58());
    const balance = (account: PublicKey, owner: Keypair, amount: string, uiAmount: number) => ({
      accountIndex: keys.indexOf(account.toBase58()),
      mint: mint.toBase58(),
      uiTokenAmount: { amount, decimals: 6, uiAmount, uiAmountString: String(uiAmount) },
      owner: owner.publicKey.toBase58(),
      programId: TOKEN_PROGRAM,
    });

    // Then both token accounts are listed, by their index among the transaction's accounts
    const byIndex = (a: { accountIndex: number }, b: { accountIndex: number }) =>
      a.accountIndex - b.accountIndex;
    assert.deepEqual(
      transaction.meta?.preTokenBalances,
      [balance(aliceAccount, alice, "1500000", 1.5), balance(bobAccount, bob, "0", 0)].sort(byIndex),
    );
    assert.deepEqual(
      transaction.meta?.postTokenBalances,
      [balance(aliceAccount, alice, "1250000", 1.25), balance(bobAccount, bob, "250000", 0.25)].sort(byIndex),
    );

    // And a transaction that names no token program has none
    const airdrop = await connection.getSignaturesForAddress(payer.publicKey);
    const first = await connection.getTransaction(airdrop.at(-1)!.signature, {
      maxSupportedTransactionVersion: 0,
    });
    assert.deepEqual([first?.meta?.preTokenBalances, first?.meta?.postTokenBalances], [[], []]);
  });

  test("getTokenLargestAccounts lists the mint's accounts, largest first", async () => {
    const largest = await connection.getTokenLargestAccounts(mint);
    assert.deepEqual(
      largest.value.map((entry) => ({ ...entry, address: entry.address.toBase58() })),
      [
        {
          address: aliceAccount.toBase58(),
          amount: "1250000",
          decimals: 6,
          uiAmount: 1.25,
          uiAmountString: "1.25",
        },
        {
          address: bobAccount.toBase58(),
          amount: "250000",
          decimals: 6,
          uiAmount: 0.25,
          uiAmountString: "0.25",
        },
      ],
    );
  });

  test("getTokenAccountsByOwner by mint in jsonParsed and by program id in base64", async () => {
    // When Alice's accounts are listed parsed, by mint
    const parsed = await connection.getParsedTokenAccountsByOwner(alice.publicKey, { mint });

    // Then her one account comes back in the validator's parsed shape
    assert.equal(parsed.value.length, 1);
    assert.equal(parsed.value[0]!.pubkey.toBase58(), aliceAccount.toBase58());
    assert.deepEqual(parsed.value[0]!.account.data, {
      program: "spl-token",
      parsed: {
        type: "account",
        info: {
          mint: mint.toBase58(),
          owner: alice.publicKey.toBase58(),
          tokenAmount: { amount: "1250000", decimals: 6, uiAmount: 1.25, uiAmountString: "1.25" },
          state: "initialized",
          isNative: false,
        },
      },
      space: 165,
    });

    // And by program id in base64, its bytes are a token account spl-token can unpack
    const raw = await connection.getTokenAccountsByOwner(bob.publicKey, { programId: TOKEN_PROGRAM_ID });
    assert.equal(raw.value.length, 1);
    const unpacked = unpackAccount(raw.value[0]!.pubkey, raw.value[0]!.account);
    assert.equal(unpacked.amount, 250_000n);
    assert.equal(unpacked.owner.toBase58(), bob.publicKey.toBase58());

    // And an owner with no token accounts has none
    const none = await clients.rpc
      .getTokenAccountsByOwner(address(payer.publicKey.toBase58()), { programId: TOKEN_PROGRAM })
      .send();
    assert.deepEqual(none.value, []);
  });

  test("token accounts are listed in the order of their addresses' bytes, as a validator lists them", async () => {
    // Given an owner with two accounts whose base58 texts sort the other way round from their bytes
    // (as when one text is shorter: a smaller number, unless it starts with "1", a zero byte)
    const carol = Keypair.generate();
    const byBytes = (keys: Keypair[]) =>
      [...keys].sort((a, b) => Buffer.compare(a.publicKey.toBuffer(), b.publicKey.toBuffer()));
    let keys: Keypair[];
    do keys = [Keypair.generate(), Keypair.generate()];
    while (byBytes(keys)[0]!.publicKey.toBase58() < byBytes(keys)[1]!.publicKey.toBase58());
    for (const key of keys) await createAccount(connection, payer, mint, carol.publicKey, key);
    const expected = byBytes(keys).map((key) => key.publicKey.toBase58());
    assert.deepEqual([...expected].sort(), [...expected].reverse(), "the texts sort the other way");

    // When they are listed by owner, and by the owner field through getProgramAccounts
    const byOwner = await connection.getTokenAccountsByOwner(carol.publicKey, {
      programId: TOKEN_PROGRAM_ID,
    });
    const scanned = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 32, bytes: carol.publicKey.toBase58() } }],
    });

    // Then both list them by their bytes
    assert.deepEqual(
      byOwner.value.map((entry) => entry.pubkey.toBase58()),
      expected,
    );
    assert.deepEqual(
      scanned.map((entry) => entry.pubkey.toBase58()),
      expected,
    );
  });

  test("a mint read with getAccountInfo in jsonParsed is parsed", async () => {
    const info = await connection.getParsedAccountInfo(mint);
    assert.deepEqual(info.value?.data, {
      program: "spl-token",
      parsed: {
        type: "mint",
        info: {
          mintAuthority: payer.publicKey.toBase58(),
          supply: "1500000",
          decimals: 6,
          isInitialized: true,
          freezeAuthority: null,
        },
      },
      space: 82,
    });

    // And getMultipleAccounts and getProgramAccounts parse the same way
    const [asMint, asAccount] = (await connection.getMultipleParsedAccounts([mint, aliceAccount])).value;
    assert.deepEqual(asMint?.data, info.value?.data);
    assert.equal((asAccount?.data as { parsed: { type: string } }).parsed.type, "account");
    const mints = await connection.getParsedProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 82 }],
    });
    const listed = mints.find((entry) => entry.pubkey.equals(mint));
    assert.deepEqual(listed?.account.data, info.value?.data);
  });

  test("an account subscription in jsonParsed notifies the token account's new balance, parsed", async () => {
    // Given a subscription to Bob's token account
    const abort = new AbortController();
    const notifications = await clients.rpcSubscriptions
      .accountNotifications(address(bobAccount.toBase58()), { encoding: "jsonParsed" })
      .subscribe({ abortSignal: abort.signal });
    const next = notifications[Symbol.asyncIterator]().next();

    // When Alice sends Bob 0.000001 more
    await transferChecked(connection, payer, aliceAccount, mint, bobAccount, alice, 1n, 6);

    // Then the notification carries the parsed account with the new amount
    const { value } = await next;
    abort.abort();
    const data = value!.value.data as unknown as {
      program: string;
      parsed: { info: { tokenAmount: { amount: string } } };
    };
    assert.equal(data.program, "spl-token");
    assert.equal(data.parsed.info.tokenAmount.amount, "250001");
  });

  test("getTokenAccountsByDelegate lists an approved account until the approval is revoked", async () => {
    // Given Alice approves a delegate for 0.1 tokens
    const delegate = Keypair.generate();
    await approveChecked(connection, payer, mint, aliceAccount, delegate.publicKey, alice, 100_000n, 6);
    const delegateAddress = address(delegate.publicKey.toBase58());

    // When the delegate's accounts are listed with kit, parsed
    const listed = await clients.rpc
      .getTokenAccountsByDelegate(delegateAddress, { programId: TOKEN_PROGRAM }, { encoding: "jsonParsed" })
      .send();

    // Then Alice's account is there with the delegation
    assert.equal(listed.value.length, 1);
    assert.equal(listed.value[0]!.pubkey, aliceAccount.toBase58());
    const info = listed.value[0]!.account.data.parsed.info;
    assert.equal(info.delegate, delegateAddress);
    assert.deepEqual(info.delegatedAmount, {
      amount: "100000",
      decimals: 6,
      uiAmount: 0.1,
      uiAmountString: "0.1",
    });

    // And after the approval is revoked it is gone
    await revoke(connection, payer, aliceAccount, alice);
    const afterRevoke = await clients.rpc
      .getTokenAccountsByDelegate(delegateAddress, { mint: address(mint.toBase58()) })
      .send();
    assert.deepEqual(afterRevoke.value, []);
  });

  test("Token-2022 mints and accounts are served like SPL Token's", async () => {
    // Given a Token-2022 mint with 2 decimals and an associated account (which carries the
    // ImmutableOwner extension) holding 12.34 tokens
    const mint2022 = await createMint(
      connection,
      payer,
      payer.publicKey,
      null,
      2,
      undefined,
      undefined,
      TOKEN_2022_PROGRAM_ID,
    );
    const account2022 = await createAssociatedTokenAccount(
      connection,
      payer,
      mint2022,
      alice.publicKey,
      undefined,
      TOKEN_2022_PROGRAM_ID,
    );
    await mintTo(
      connection,
      payer,
      mint2022,
      account2022,
      payer,
      1_234n,
      [],
      undefined,
      TOKEN_2022_PROGRAM_ID,
    );

    // When Alice's Token-2022 accounts are listed parsed, with kit
    const listed = await clients.rpc
      .getTokenAccountsByOwner(
        address(alice.publicKey.toBase58()),
        { programId: TOKEN_2022_PROGRAM },
        { encoding: "jsonParsed" },
      )
      .send();

    // Then the account is reported by the spl-token-2022 parser, with its full size and its
    // extension
    assert.equal(listed.value.length, 1);
    const { data } = listed.value[0]!.account;
    assert.equal(data.program, "spl-token-2022");
    assert.equal(data.space, 170n);
    assert.equal(data.parsed.info.tokenAmount.uiAmountString, "12.34");
    assert.deepEqual(data.parsed.info.extensions, [{ extension: "immutableOwner" }]);
    const supply = await connection.getTokenSupply(mint2022);
    assert.equal(supply.value.uiAmountString, "12.34");
    const largest = await connection.getTokenLargestAccounts(mint2022);
    assert.deepEqual(
      largest.value.map((entry) => entry.address.toBase58()),
      [account2022.toBase58()],
    );
  });

  test("a Token-2022 mint's extensions in jsonParsed carry a validator's names (scaledUiAmountConfig)", async () => {
    // Given a Token-2022 mint with the ScaledUiAmount extension
    const mint = await token2022Mint(
      connection,
      payer,
      ExtensionType.ScaledUiAmountConfig,
      (mint) =>
        createInitializeScaledUiAmountConfigInstruction(mint, payer.publicKey, 2, TOKEN_2022_PROGRAM_ID),
      6,
    );

    // When it is read in jsonParsed
    const { value } = await connection.getParsedAccountInfo(mint);

    // Then its extension is named as the account decoder of a validator names it
    const parsed = (value?.data as { parsed: { info: { extensions: { extension: string }[] } } }).parsed;
    assert.deepEqual(
      parsed.info.extensions.map(({ extension }) => extension),
      ["scaledUiAmountConfig"],
    );
  });

  test("interest-bearing and scaled-UI-amount mints' amounts read as the Token-2022 program computes them", async () => {
    // Given a mint that scales UI amounts by 1.5 and one that bears 327.67 % a year (2 decimals
    // each), and an account of each holding 12,345 and 10^12 raw units
    const mints = {
      scaled: await token2022Mint(
        connection,
        payer,
        ExtensionType.ScaledUiAmountConfig,
        (mint) =>
          createInitializeScaledUiAmountConfigInstruction(mint, payer.publicKey, 1.5, TOKEN_2022_PROGRAM_ID),
        2,
      ),
      interest: await token2022Mint(
        connection,
        payer,
        ExtensionType.InterestBearingConfig,
        (mint) =>
          createInitializeInterestBearingMintInstruction(
            mint,
            payer.publicKey,
            32_767,
            TOKEN_2022_PROGRAM_ID,
          ),
        2,
      ),
    };
    const amounts = { scaled: 12_345n, interest: 10n ** 12n };
    for (const kind of ["scaled", "interest"] as const) {
      const mint = mints[kind];
      const holder = await createAssociatedTokenAccount(
        connection,
        payer,
        mint,
        alice.publicKey,
        undefined,
        TOKEN_2022_PROGRAM_ID,
      );
      const minted = await mintTo(
        connection,
        payer,
        mint,
        holder,
        payer,
        amounts[kind],
        [],
        undefined,
        TOKEN_2022_PROGRAM_ID,
      );
      await sleep(1_100); // interest accrues by the second

      // When its amounts are read with each method that shows one, between two runs of the
      // program's own AmountToUiAmount (simulated, with the ledger's Clock)
      const programBefore = await amountToUiAmount(
        connection,
        payer,
        mint,
        amounts[kind],
        TOKEN_2022_PROGRAM_ID,
      );
      const read = {
        balance: (await connection.getTokenAccountBalance(holder)).value,
        supply: (await clients.rpc.getTokenSupply(address(mint.toBase58())).send()).value,
        largest: (await connection.getTokenLargestAccounts(mint)).value[0]!,
        parsed: (
          (await connection.getParsedAccountInfo(holder)).value?.data as {
            parsed: { info: { tokenAmount: { uiAmountString: string; uiAmount: number } } };
          }
        ).parsed.info.tokenAmount,
      };
      const programAfter = await amountToUiAmount(
        connection,
        payer,
        mint,
        amounts[kind],
        TOKEN_2022_PROGRAM_ID,
      );

      // Then each is what the program computes at one of those two times, uiAmount its float
      assert.equal(typeof programBefore, "string");
      for (const [method, amount] of Object.entries(read)) {
        assert.ok(
          [programBefore, programAfter].includes(amount.uiAmountString ?? ""),
          `${kind} ${method}: ${amount.uiAmountString}, the program: ${String(programBefore)} then ${String(programAfter)}`,
        );
        assert.equal(amount.uiAmount, Number(amount.uiAmountString), `${kind} ${method}`);
      }
      if (kind === "scaled") assert.equal(read.balance.uiAmountString, "185.17");
      else assert.notEqual(read.balance.uiAmountString, "10000000000");

      // And the minting transaction's metadata records the raw amount over the decimals, unscaled,
      // as a validator's ledger data does
      const meta = (await connection.getTransaction(minted, { maxSupportedTransactionVersion: 0 }))?.meta;
      assert.deepEqual(
        meta?.postTokenBalances?.map((balance) => balance.uiTokenAmount.uiAmountString),
        [{ scaled: "123.45", interest: "10000000000" }[kind]],
      );
    }
  });

  test("refusals carry a validator's code and message", async () => {
    const nowhere = Keypair.generate().publicKey.toBase58();
    const payerAddress = payer.publicKey.toBase58();
    const cases: [string, unknown[], string][] = [
      ["getTokenAccountBalance", [nowhere], "Invalid param: could not find account"],
      ["getTokenAccountBalance", [payerAddress], "Invalid param: not a Token account"],
      ["getTokenAccountBalance", [mint.toBase58()], "Invalid param: not a Token account"],
      ["getTokenSupply", [nowhere], "Invalid param: could not find account"],
      ["getTokenSupply", [payerAddress], "Invalid param: not a Token mint"],
      ["getTokenSupply", [aliceAccount.toBase58()], "Invalid param: mint could not be unpacked"],
      ["getTokenLargestAccounts", [nowhere], "Invalid param: could not find mint"],
      [
        "getTokenLargestAccounts",
        [aliceAccount.toBase58()],
        "Invalid param: Token mint could not be unpacked",
      ],
      ["getTokenAccountsByOwner", [payerAddress, { mint: nowhere }], "Invalid param: could not find mint"],
      [
        "getTokenAccountsByOwner",
        [payerAddress, { programId: "11111111111111111111111111111111" }],
        "Invalid param: unrecognized Token program id",
      ],
      [
        "getTokenAccountsByDelegate",
        [payerAddress, {}],
        "Invalid params: the filter must be { mint: address } or { programId: address }",
      ],
      ["getTokenAccountsByOwner", [payerAddress], "Invalid params: missing parameter 2 (filter)"],
      ["getTokenSupply", ["not-a-mint"], 'Invalid params: mint is not base58: "not-a-mint"'],
    ];
    for (const [method, params, message] of cases) {
      const reply = await rpcCall(ledger.rpcUrl, method, params);
      assert.deepEqual(reply.error, { code: -32602, message }, `${method} ${JSON.stringify(params)}`);
    }
  });
});

describe("token balances on disk", () => {
  test("a transaction's token balances read the same after a restart", async () => {
    const dataDir = temporaryDataDir();
    let ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
    try {
      // Given a mint and a mintTo, whose metadata carries a post-token balance
      const connection = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl });
      const payer = Keypair.generate();
      const airdrop = await connection.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL);
      await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash()) });
      const mint = await createMint(connection, payer, payer.publicKey, null, 2);
      const account = await createAssociatedTokenAccount(connection, payer, mint, payer.publicKey);
      const signature = await mintTo(connection, payer, mint, account, payer, 700n);
      const read = async () =>
        (await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta;
      const before = await read();
      assert.equal(before?.postTokenBalances?.[0]?.uiTokenAmount.uiAmountString, "7");

      // When the ledger stops and starts again on the same directory
      await sleep(700); // web3.js closes its idle socket 500 ms after the last subscription
      await ledger.stop();
      ledger = await spawnLedgerProcess({ dataDir: dataDir.path });

      // Then the balances read the same
      const restarted = new Connection(ledger.rpcUrl, "confirmed");
      const after = (await restarted.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta;
      assert.deepEqual(
        [after?.preTokenBalances, after?.postTokenBalances],
        [before?.preTokenBalances, before?.postTokenBalances],
      );
    } finally {
      await ledger.stop();
      dataDir.remove();
    }
  });
});
