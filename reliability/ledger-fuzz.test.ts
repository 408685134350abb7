/**
 * Malformed input to the ledger's JSON-RPC: random bytes sent as base64 and base58 transactions,
 * valid transactions truncated, corrupted or padded past the size limit, bad params for every
 * method, garbage JSON and huge batches. Every answer is a clean JSON-RPC error (never an internal
 * error), and the node keeps serving: getHealth is ok and a valid transfer still succeeds.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { getTransferSolInstruction } from "@solana-program/system";
import {
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
} from "@solana/kit";
import { generateSecretKey } from "@abas/sdk";

import {
  fundedOperator,
  sendInstructions,
  type Operator,
} from "../packages/indexer/src/__tests__/support/ledger-actors.js";
import { runSeed, seededRandom, startKillableLedger, type KillableLedger, type Random } from "./support.js";

const ROUNDS = Number(process.env.RELIABILITY_LEDGER_ROUNDS ?? 1500);
const METHODS = [
  "getAccountInfo",
  "getBalance",
  "getBlockHeight",
  "getBlockTime",
  "getEpochInfo",
  "getFeeForMessage",
  "getHealth",
  "getLatestBlockhash",
  "getMinimumBalanceForRentExemption",
  "getMultipleAccounts",
  "getProgramAccounts",
  "getSignatureStatuses",
  "getSignaturesForAddress",
  "getSlot",
  "getTransaction",
  "isBlockhashValid",
  "requestAirdrop",
  "sendTransaction",
  "simulateTransaction",
  "noSuchMethod",
  "",
];
/** The codes a clean refusal may carry (the spec's and Solana validators'); never -32603. */
const CLEAN_CODES = new Set([-32700, -32600, -32601, -32602, -32002, -32003, -32004, -32015, -32016]);

type RpcReply = { status: number; text: string };

async function post(rpcUrl: string, body: string): Promise<RpcReply> {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  return { status: response.status, text: await response.text() };
}

function randomParam(random: Random, depth = 0): unknown {
  switch (random.int(0, depth > 2 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random.int(-(2 ** 31), 2 ** 31);
    case 2:
      return random.pick([1e308, -0, 2 ** 64, Number.MAX_SAFE_INTEGER + 2, 0.5]);
    case 3:
      return random.chance(0.5);
    case 4:
      return Buffer.from(random.bytes(random.int(0, 64))).toString("base64");
    case 5:
      return getBase58Decoder().decode(random.bytes(random.int(0, 64)));
    case 6:
      // Huge strings only at the top: base58 decoding of a long string is quadratic (40 KB: ~1.5 s).
      return depth === 0 && random.chance(0.1)
        ? "x".repeat(random.int(1_000, 20_000))
        : random.pick(["base64", "base58", "json", "jsonParsed", "finalized", "processed", "zzz"]);
    case 7:
      return Array.from({ length: random.int(0, 5) }, () => randomParam(random, depth + 1));
    case 8:
      return Object.fromEntries(
        Array.from({ length: random.int(0, 4) }, () => [
          random.pick([
            "encoding",
            "commitment",
            "limit",
            "before",
            "filters",
            "dataSlice",
            "skipPreflight",
            "__proto__",
            "offset",
          ]),
          randomParam(random, depth + 1),
        ]),
      );
    default:
      return Array.from({ length: random.int(1000, 20_000) }, () => random.int(0, 255));
  }
}

describe("malformed JSON-RPC and transactions to the ledger", { timeout: 600_000 }, () => {
  let ledger: KillableLedger;
  let payer: Operator;
  let validTransaction: Uint8Array;

  before(async () => {
    ledger = await startKillableLedger();
    payer = await fundedOperator(ledger, 10n);
    const recipient = await createKeyPairSignerFromBytes(generateSecretKey());
    const { value: blockhash } = await ledger.rpc.getLatestBlockhash().send();
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer.signer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getTransferSolInstruction({
              source: payer.signer,
              destination: recipient.address,
              amount: lamports(1n),
            }),
          ],
          m,
        ),
    );
    validTransaction = Buffer.from(
      getBase64EncodedWireTransaction(await signTransactionMessageWithSigners(message)),
      "base64",
    );
  });

  after(async () => {
    await ledger?.dispose();
  });

  it(`refuses ${ROUNDS} malformed requests cleanly and keeps serving`, async (t) => {
    const seed = runSeed();
    const random = seededRandom(seed);
    t.diagnostic(`seed ${seed} (RELIABILITY_SEED=${seed} replays these requests)`);
    const base58 = getBase58Decoder();
    const started = Date.now();
    const kinds = new Map<string, number>();
    const codes = new Map<number, number>();
    const bad: string[] = [];
    const unverified: string[] = [];
    const sendTx = (
      bytes: Uint8Array,
      encoding: "base64" | "base58",
      id: number,
      extra: Record<string, unknown> = {},
    ) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: random.pick(["sendTransaction", "simulateTransaction"]),
        params: [
          encoding === "base64" ? Buffer.from(bytes).toString("base64") : base58.decode(bytes),
          { encoding, ...extra },
        ],
      });
    const check = (kind: string, reply: RpcReply, expectError: boolean): void => {
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if ((reply.status === 413 || reply.status === 0) && kind === "oversized body") return;
      if (reply.status !== 200) {
        bad.push(`${kind}: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
        return;
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(reply.text);
      } catch {
        bad.push(`${kind}: not JSON: ${reply.text.slice(0, 200)}`);
        return;
      }
      for (const item of Array.isArray(parsed) ? parsed : [parsed]) {
        const response = item as {
          jsonrpc?: string;
          error?: { code?: unknown; message?: unknown };
          result?: unknown;
        };
        if (response.jsonrpc !== "2.0")
          bad.push(`${kind}: not a JSON-RPC 2.0 response: ${reply.text.slice(0, 200)}`);
        else if (response.error !== undefined) {
          const code = response.error.code;
          if (
            typeof code !== "number" ||
            typeof response.error.message !== "string" ||
            !CLEAN_CODES.has(code)
          ) {
            bad.push(`${kind}: unclean error ${JSON.stringify(response.error).slice(0, 300)}`);
          } else codes.set(code, (codes.get(code) ?? 0) + 1);
        } else if (expectError) {
          // simulateTransaction (no signature check by default) refuses in its result: value.err.
          // sendTransaction with skipPreflight checks signatures when executing, as Solana does: it
          // answers with the signature, which must then never land successfully (checked below).
          if (typeof response.result === "string") unverified.push(response.result);
          else if ((response.result as { value?: unknown } | null)?.value === undefined) {
            bad.push(`${kind}: accepted: ${reply.text.slice(0, 200)}`);
          } else codes.set(0, (codes.get(0) ?? 0) + 1);
        }
      }
    };

    // Given a running ledger, when it is sent malformed transactions and requests of every kind
    for (let round = 0; round < ROUNDS; round++) {
      const kind = random.int(0, 9);
      if (kind === 0) {
        const bytes = random.bytes(random.int(0, 1_500));
        check(
          "random bytes as a base64 transaction",
          await post(ledger.rpcUrl, sendTx(bytes, "base64", round)),
          true,
        );
      } else if (kind === 1) {
        const bytes = random.bytes(random.int(0, 1_000));
        check(
          "random bytes as a base58 transaction",
          await post(ledger.rpcUrl, sendTx(bytes, "base58", round)),
          true,
        );
      } else if (kind === 2) {
        const cut = validTransaction.subarray(0, random.int(0, validTransaction.length - 1));
        check(
          "truncated transaction",
          await post(ledger.rpcUrl, sendTx(cut, random.pick(["base64", "base58"] as const), round)),
          true,
        );
      } else if (kind === 3) {
        const padded = new Uint8Array([...validTransaction, ...random.bytes(random.int(1, 4_000))]);
        check(
          "oversized or padded transaction",
          await post(ledger.rpcUrl, sendTx(padded, "base64", round)),
          true,
        );
      } else if (kind === 4) {
        const corrupted = Uint8Array.from(validTransaction);
        for (let flips = random.int(1, 8); flips > 0; flips--) {
          corrupted[random.int(0, corrupted.length - 1)]! ^= random.int(1, 255);
        }
        // A flip may land in the signature, a key or the blockhash: refused either way (bad signature).
        check(
          "corrupted transaction",
          await post(
            ledger.rpcUrl,
            sendTx(corrupted, "base64", round, { skipPreflight: random.chance(0.5) }),
          ),
          true,
        );
      } else if (kind === 5 || kind === 6) {
        const params = random.chance(0.2)
          ? randomParam(random)
          : Array.from({ length: random.int(0, 4) }, () => randomParam(random));
        const body = JSON.stringify({ jsonrpc: "2.0", id: round, method: random.pick(METHODS), params });
        check("bad params", await post(ledger.rpcUrl, body), false);
      } else if (kind === 7) {
        const garbage = random.pick([
          () => Buffer.from(random.bytes(random.int(0, 2_000))).toString("latin1"),
          () => JSON.stringify({ jsonrpc: "2.0", id: round, method: "getSlot" }).slice(0, random.int(0, 40)),
          () =>
            random.pick([
              "",
              "null",
              "1",
              '"x"',
              "{}",
              "[]",
              "[1,2]",
              '{"jsonrpc":"1.0","id":1}',
              '{"id":{},"method":5}',
              "[".repeat(5_000),
            ]),
        ])();
        check("garbage JSON", await post(ledger.rpcUrl, garbage), true);
      } else if (kind === 8) {
        const size = random.int(100, 2_000);
        const batch = Array.from({ length: size }, (_, index) =>
          random.chance(0.5)
            ? { jsonrpc: "2.0", id: index, method: random.pick(["getHealth", "getSlot", "noSuchMethod"]) }
            : {
                jsonrpc: "2.0",
                id: index,
                method: random.pick(["getBalance", "getAccountInfo", "getSignatureStatuses", "getBlockTime"]),
                params: [randomParam(random, 3)],
              },
        );
        check("huge batch", await post(ledger.rpcUrl, JSON.stringify(batch)), false);
      } else if (random.chance(0.05)) {
        // Past the 16 MiB body limit the node answers 413 or closes the connection mid-upload.
        const reply = await post(ledger.rpcUrl, `[${"1,".repeat(9_000_000)}1]`).catch(() => ({
          status: 0,
          text: "",
        }));
        check("oversized body", reply, true);
      } else {
        const ids = [{}, [], true, 1.5, "x".repeat(1_000)];
        const body = JSON.stringify({ jsonrpc: "2.0", id: random.pick(ids), method: random.pick(METHODS) });
        check("bad id", await post(ledger.rpcUrl, body), false);
      }
    }
    const durationMs = Date.now() - started;

    // Then every answer was a clean JSON-RPC reply, and the node keeps serving
    const health = await (
      await post(ledger.rpcUrl, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }))
    ).text;
    assert.equal((JSON.parse(health) as { result?: unknown }).result, "ok");
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (let start = 0; start < unverified.length; start += 100) {
      const chunk = unverified.slice(start, start + 100);
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getSignatureStatuses", params: [chunk] });
      const statuses = (
        JSON.parse((await post(ledger.rpcUrl, body)).text) as {
          result: { value: ({ err: unknown } | null)[] };
        }
      ).result.value;
      statuses.forEach((status, index) => {
        if (status !== null && status.err === null) bad.push(`corrupted transaction landed: ${chunk[index]}`);
      });
    }
    const recipient = await createKeyPairSignerFromBytes(generateSecretKey());
    const transfer = await sendInstructions(ledger, payer.signer, [
      getTransferSolInstruction({
        source: payer.signer,
        destination: recipient.address,
        amount: lamports(1_000_000n),
      }),
    ]);
    assert.equal(transfer.err, null);
    assert.equal((await ledger.rpc.getBalance(recipient.address).send()).value, 1_000_000n);

    const summary =
      `${ROUNDS} requests in ${(durationMs / 1000).toFixed(1)} s; kinds ${JSON.stringify(Object.fromEntries([...kinds].sort()))}; ` +
      `${unverified.length} corrupted transactions sent without preflight, none landed; error codes (0: refused in a simulation result) ${JSON.stringify(Object.fromEntries([...codes].sort()))}`;
    t.diagnostic(summary);
    assert.deepEqual(bad.slice(0, 8), [], `${bad.length} unclean answers (seed ${seed}); ${summary}`);
  });
});
