/**
 * Errors carry the exact JSON-RPC codes that validators use, with messages that say what is wrong.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { buildInitializeInstruction } from "@abas/program-client";
import { generateKeyPairSigner, getBase58Decoder, type Blockhash, type KeyPairSigner } from "@solana/kit";

import {
  fundedSigner,
  kitClients,
  postRaw,
  rpcCall,
  startLedgerProcess,
  type LedgerUnderTest,
} from "./support/ledger-under-test.js";
import { latestBlockhash, sendBase64, signInstructions, signTransfer } from "./support/transactions.js";

describe("JSON-RPC errors", () => {
  let ledger: LedgerUnderTest;
  let payer: KeyPairSigner;

  before(async () => {
    ledger = await startLedgerProcess();
    payer = await fundedSigner(kitClients(ledger), 10n);
  });
  after(async () => await ledger.dispose());

  test("a body that is not JSON is a parse error (-32700)", async () => {
    // When the body is broken JSON
    const reply = await postRaw(ledger.rpcUrl, '{"jsonrpc":"2.0","id":1,"method":');
    // Then
    assert.deepEqual(reply, { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
  });

  test("a request that is not JSON-RPC 2.0 is an invalid request (-32600)", async () => {
    // When the version is wrong, the method missing, or the batch empty
    const wrongVersion = (await postRaw(ledger.rpcUrl, '{"jsonrpc":"1.0","id":7,"method":"getSlot"}')) as {
      id: unknown;
      error: { code: number };
    };
    const noMethod = (await postRaw(ledger.rpcUrl, '{"jsonrpc":"2.0","id":8}')) as {
      error: { code: number };
    };
    const emptyBatch = (await postRaw(ledger.rpcUrl, "[]")) as { error: { code: number } };
    // Then each is -32600, echoing the id where there is one
    assert.equal(wrongVersion.error.code, -32600);
    assert.equal(wrongVersion.id, 7);
    assert.equal(noMethod.error.code, -32600);
    assert.equal(emptyBatch.error.code, -32600);
  });

  test("an unknown method is -32601", async () => {
    const reply = await rpcCall(ledger.rpcUrl, "getEverything", []);
    assert.equal(reply.error?.code, -32601);
    assert.match(reply.error!.message, /Method not found/);
  });

  test("bad parameters are -32602 with a message naming the problem", async () => {
    // When parameters are missing, malformed or out of range
    const cases: [string, unknown, RegExp][] = [
      ["getBalance", [], /missing parameter 1 \(pubkey\)/],
      ["getBalance", ["not-an-address"], /pubkey is not base58/],
      ["getBalance", ["1111"], /pubkey is not a 32-byte base58 address/],
      // Refused by length before any decoding: base58 decoding grows with the square of the input.
      ["getBalance", ["1".repeat(200_000)], /200000 characters, at most 44/],
      ["getSignatureStatuses", [["2".repeat(89)]], /at most 88/],
      ["getBalance", { pubkey: "x" }, /takes its parameters as an array/],
      ["getSignaturesForAddress", [payer.address, { limit: 0 }], /limit must be an integer from 1 to 1000/],
      [
        "getProgramAccounts",
        [payer.address, { filters: [{ memcmp: { offset: -1, bytes: "1" } }] }],
        /filters\[0\]\.memcmp\.offset/,
      ],
      ["getAccountInfo", [payer.address, { encoding: "base64+zstd" }], /base64\+zstd/],
      ["sendTransaction", ["AAAA", { encoding: "base64" }], /failed to deserialize the transaction/],
      ["sendTransaction", ["@@@", { encoding: "base64" }], /not valid base64/],
      [
        "getTransaction",
        [getBase58Decoder().decode(new Uint8Array(64).fill(1)), { commitment: "processed" }],
        /commitment below `confirmed`/,
      ],
      ["requestAirdrop", [payer.address, 0], /lamports must be greater than 0/],
      ["getLatestBlockhash", [{ commitment: "eventually" }], /commitment must be one of/],
    ];
    for (const [method, params, message] of cases) {
      const reply = await rpcCall(ledger.rpcUrl, method, params);
      // Then
      assert.equal(
        reply.error?.code,
        -32602,
        `${method} ${JSON.stringify(params)}: ${JSON.stringify(reply)}`,
      );
      assert.match(reply.error!.message, message);
    }
    // A u64 beyond 2^53 - 1, which JSON.parse rounds, is refused rather than rounded
    const huge = (await postRaw(
      ledger.rpcUrl,
      `{"jsonrpc":"2.0","id":1,"method":"requestAirdrop","params":["${payer.address}",9007199254740993]}`,
    )) as { error?: { code: number; message: string } };
    assert.equal(huge.error?.code, -32602);
    assert.match(huge.error!.message, /lamports must be at most 9007199254740991/);
  });

  test("an airdrop the faucet cannot send is refused with the reason, and the ledger goes on", async () => {
    // When the recipient is the System Program (its transfer would name it twice) or the faucet's
    // transfer fails (a read-only account's balance)
    const cases: [string, RegExp][] = [
      [
        "11111111111111111111111111111111",
        /^airdrop request failed: the faucet cannot send to 11111111111111111111111111111111: .*an account key appears twice/,
      ],
      [
        "Ed25519SigVerify111111111111111111111111111",
        /^airdrop request failed: the faucet could not send 1000000000 lamports: .*read-only account/,
      ],
    ];
    for (const [recipient, message] of cases) {
      const reply = await rpcCall(ledger.rpcUrl, "requestAirdrop", [recipient, 1_000_000_000]);
      // Then
      assert.equal(reply.error?.code, -32603, JSON.stringify(reply));
      assert.match(reply.error!.message, message);
    }
    assert.equal((await rpcCall(ledger.rpcUrl, "getHealth", [])).result, "ok");
  });

  test("a batch answers every request in order, errors included", async () => {
    const reply = (await postRaw(
      ledger.rpcUrl,
      JSON.stringify([
        { jsonrpc: "2.0", id: "a", method: "getHealth" },
        { jsonrpc: "2.0", id: "b", method: "nope" },
        { jsonrpc: "2.0", method: "getSlot" },
        { jsonrpc: "2.0", id: "c", method: "getBalance", params: [payer.address] },
      ]),
    )) as { id: string; result?: unknown; error?: { code: number } }[];
    // Then the notification (no id) gets no answer
    assert.deepEqual(
      reply.map((r) => r.id),
      ["a", "b", "c"],
    );
    assert.equal(reply[0]?.result, "ok");
    assert.equal(reply[1]?.error?.code, -32601);
    assert.equal((reply[2]?.result as { value: number }).value, 10_000_000_000);
  });

  test("a failing program instruction is refused in preflight with -32002 and the logs", async () => {
    // Given the ABAS `initialize`, signed by a key that is not the program's upgrade authority
    const transaction = await signInstructions(
      payer,
      [await buildInitializeInstruction({ programId: ledger.programId, authority: payer })],
      await latestBlockhash(ledger.rpcUrl),
    );
    const balance = async () =>
      ((await rpcCall(ledger.rpcUrl, "getBalance", [payer.address])).result as { value: number }).value;
    const balanceBefore = await balance();
    // When it is sent with preflight
    const reply = await sendBase64(ledger.rpcUrl, transaction);
    // Then the program's error (NotUpgradeAuthority = 1112 = 0x458) comes back as a simulation failure
    assert.equal(reply.error?.code, -32002);
    assert.equal(
      reply.error?.message,
      "Transaction simulation failed: Error processing Instruction 0: custom program error: 0x458",
    );
    const data = reply.error?.data as {
      err: unknown;
      logs: string[];
      accounts: unknown;
      unitsConsumed: number;
      returnData: unknown;
    };
    assert.deepEqual(data.err, { InstructionError: [0, { Custom: 1112 }] });
    assert.ok(data.logs.some((line) => line.startsWith(`Program ${ledger.programId} invoke [1]`)));
    assert.ok(data.logs.some((line) => line.includes("failed: custom program error: 0x458")));
    assert.equal(data.accounts, null);
    assert.ok(data.unitsConsumed > 0);
    assert.equal(data.returnData, null);
    // And nothing landed
    assert.equal(
      (
        (await rpcCall(ledger.rpcUrl, "getSignatureStatuses", [[transaction.signature]])).result as {
          value: unknown[];
        }
      ).value[0],
      null,
    );
    // And the refused transaction cost nothing, even though it was executed once to find the error
    assert.equal(await balance(), balanceBefore);
  });

  test("with skipPreflight a failing transaction lands with its error and pays its fee", async () => {
    // Given the same failing instruction, sent without preflight
    const transaction = await signInstructions(
      payer,
      [await buildInitializeInstruction({ programId: ledger.programId, authority: payer })],
      await latestBlockhash(ledger.rpcUrl),
    );
    const before = ((await rpcCall(ledger.rpcUrl, "getBalance", [payer.address])).result as { value: number })
      .value;
    const reply = await sendBase64(ledger.rpcUrl, transaction, { skipPreflight: true });
    // Then the signature is returned, the transaction is recorded as failed, and only the fee was charged
    assert.equal(reply.result, transaction.signature);
    const fetched = (
      await rpcCall(ledger.rpcUrl, "getTransaction", [
        transaction.signature,
        { maxSupportedTransactionVersion: 0 },
      ])
    ).result as {
      meta: { err: unknown; fee: number; status: unknown; preBalances: number[]; postBalances: number[] };
    };
    assert.deepEqual(fetched.meta.err, { InstructionError: [0, { Custom: 1112 }] });
    assert.deepEqual(fetched.meta.status, { Err: { InstructionError: [0, { Custom: 1112 }] } });
    assert.equal(fetched.meta.fee, 5000);
    assert.equal(fetched.meta.preBalances[0]! - fetched.meta.postBalances[0]!, 5000);
    const after = ((await rpcCall(ledger.rpcUrl, "getBalance", [payer.address])).result as { value: number })
      .value;
    assert.equal(before - after, 5000);
  });

  test("a bad signature is -32003, and sending a landed transaction again is AlreadyProcessed", async () => {
    // Given a valid transfer, and a copy with one signature byte flipped
    const recipient = await generateKeyPairSigner();
    const transaction = await signTransfer(
      payer,
      recipient.address,
      1_000_000n,
      await latestBlockhash(ledger.rpcUrl),
    );
    const bytes = Buffer.from(transaction.base64, "base64");
    bytes[1] = bytes[1]! ^ 0xff;
    const forged = { signature: transaction.signature, base64: bytes.toString("base64") };

    // When the forged one is sent, then the real one twice
    const forgedReply = await sendBase64(ledger.rpcUrl, forged);
    const first = await sendBase64(ledger.rpcUrl, transaction);
    const again = await sendBase64(ledger.rpcUrl, transaction);

    // Then
    assert.equal(forgedReply.error?.code, -32003);
    assert.equal(forgedReply.error?.message, "Transaction signature verification failure");
    assert.equal(first.result, transaction.signature);
    assert.equal(again.error?.code, -32002);
    assert.equal(
      again.error?.message,
      "Transaction simulation failed: This transaction has already been processed",
    );
    assert.equal((again.error?.data as { err: unknown }).err, "AlreadyProcessed");
  });

  test("a forged signature is checked before the blockhash, and without preflight it is dropped", async () => {
    // Given two transfers with one signature byte flipped: one with a live blockhash, one with a
    // blockhash this ledger never made
    const recipient = await generateKeyPairSigner();
    const forge = (transaction: { base64: string }) => {
      const bytes = Buffer.from(transaction.base64, "base64");
      bytes[1] = bytes[1]! ^ 0xff;
      return {
        signature: getBase58Decoder().decode(bytes.subarray(1, 65)),
        base64: bytes.toString("base64"),
      };
    };
    const live = forge(
      await signTransfer(payer, recipient.address, 1_000_000n, await latestBlockhash(ledger.rpcUrl)),
    );
    const unknownBlockhash = forge(
      await signTransfer(payer, recipient.address, 1_000_000n, {
        blockhash: getBase58Decoder().decode(new Uint8Array(32).fill(9)) as Blockhash,
        lastValidBlockHeight: 1_000n,
      }),
    );
    const balanceBefore = (
      (await rpcCall(ledger.rpcUrl, "getBalance", [payer.address])).result as { value: number }
    ).value;

    // When the one with the unknown blockhash is sent with preflight, and the live one without
    const stale = await sendBase64(ledger.rpcUrl, unknownBlockhash);
    const skipped = await sendBase64(ledger.rpcUrl, live, { skipPreflight: true });

    // Then the signature is what the first is refused for, as a validator does; the second is
    // answered with its signature but never lands: no status, no fee, nothing moved
    assert.equal(stale.error?.code, -32003);
    assert.equal(skipped.result, live.signature);
    const statuses = (await rpcCall(ledger.rpcUrl, "getSignatureStatuses", [[live.signature]])).result as {
      value: unknown[];
    };
    assert.deepEqual(statuses.value, [null]);
    const balanceAfter = (
      (await rpcCall(ledger.rpcUrl, "getBalance", [payer.address])).result as { value: number }
    ).value;
    assert.equal(balanceAfter, balanceBefore);
    const received = (
      (await rpcCall(ledger.rpcUrl, "getBalance", [recipient.address])).result as { value: number }
    ).value;
    assert.equal(received, 0);
  });

  test("a minContextSlot in the future is -32016, and GET /health answers ok", async () => {
    const reply = await rpcCall(ledger.rpcUrl, "getBalance", [payer.address, { minContextSlot: 1e12 }]);
    assert.equal(reply.error?.code, -32016);
    assert.equal(await (await fetch(`${ledger.rpcUrl}/health`)).text(), "ok");
  });
});
