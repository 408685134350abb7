/**
 * What the ledger confirmed survives: a clean restart, and `kill -9` at random moments in the
 * middle of a stream of transactions (snapshots every few transactions, so kills also land
 * during snapshot writes and recoveries replay log tails).
 */
import assert from "node:assert/strict";
import { statSync, truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";

import { generateKeyPairSigner, type Address, type KeyPairSigner } from "@solana/kit";

import { spawnLedgerProcess, type LedgerProcess } from "../index.js";
import {
  kitClients,
  LAMPORTS_PER_SOL,
  rpcCall,
  sleep,
  temporaryDataDir,
} from "./support/ledger-under-test.js";
import { latestBlockhash, sendBase64, signTransfer } from "./support/transactions.js";

const FEE = 5_000n;

async function result<T>(rpcUrl: string, method: string, params?: unknown): Promise<T> {
  const reply = await rpcCall(rpcUrl, method, params);
  assert.equal(reply.error, undefined, `${method}: ${JSON.stringify(reply.error)}`);
  return reply.result as T;
}

interface Transfer {
  readonly signature: string;
  readonly recipient: Address;
  readonly lamports: bigint;
}

describe("persistence", () => {
  test("a restart keeps transactions, history, balances, accounts, and recent blockhashes stay valid", async () => {
    const dataDir = temporaryDataDir();
    let ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
    try {
      // Given a ledger with a funded payer and one transfer
      const payer = await generateKeyPairSigner();
      await kitClients(ledger).airdrop({
        recipientAddress: payer.address,
        lamports: (10n * LAMPORTS_PER_SOL) as never,
        commitment: "confirmed",
      });
      const recipient = await generateKeyPairSigner();
      const transfer = await signTransfer(
        payer,
        recipient.address,
        LAMPORTS_PER_SOL,
        await latestBlockhash(ledger.rpcUrl),
      );
      assert.equal((await sendBase64(ledger.rpcUrl, transfer)).result, transfer.signature);
      const query = async (rpcUrl: string) => ({
        transaction: await result(rpcUrl, "getTransaction", [
          transfer.signature,
          { maxSupportedTransactionVersion: 0 },
        ]),
        history: await result(rpcUrl, "getSignaturesForAddress", [payer.address]),
        balances: (
          await result<{ value: unknown }>(rpcUrl, "getMultipleAccounts", [
            [payer.address, recipient.address],
            { encoding: "base64" },
          ])
        ).value,
        programAccounts: await result(rpcUrl, "getProgramAccounts", [
          ledger.programId,
          { encoding: "base64" },
        ]),
        genesisHash: await result(rpcUrl, "getGenesisHash"),
      });
      const before = await query(ledger.rpcUrl);
      const slotBefore = await result<number>(ledger.rpcUrl, "getSlot");
      // And a transaction signed with a current blockhash but not sent yet
      const pending = await signTransfer(
        payer,
        recipient.address,
        2n * LAMPORTS_PER_SOL,
        await latestBlockhash(ledger.rpcUrl),
      );

      // When the ledger stops and starts again on the same directory
      await ledger.stop();
      ledger = await spawnLedgerProcess({ dataDir: dataDir.path });

      // Then everything reads the same, time went on, and the pending transaction still lands
      assert.deepEqual(await query(ledger.rpcUrl), before);
      assert.ok((await result<number>(ledger.rpcUrl, "getSlot")) > slotBefore);
      assert.equal((await sendBase64(ledger.rpcUrl, pending)).result, pending.signature);
      assert.equal(
        (await result<{ value: number }>(ledger.rpcUrl, "getBalance", [recipient.address])).value,
        3 * 1e9,
      );
    } finally {
      await ledger.stop();
      dataDir.remove();
    }
  });

  test("a log that lost its tail after a clean stop: abas-ledger exits, naming the file and the way out", async () => {
    const dataDir = temporaryDataDir();
    const ledger = await spawnLedgerProcess({ dataDir: dataDir.path });
    try {
      // Given a ledger with a confirmed transfer, stopped cleanly (a final snapshot at the log's end)
      const payer = await generateKeyPairSigner();
      await kitClients(ledger).airdrop({
        recipientAddress: payer.address,
        lamports: LAMPORTS_PER_SOL as never,
        commitment: "confirmed",
      });
      await ledger.stop();
      // And a disk that then lost the last 16 bytes of the event log
      const logPath = join(dataDir.path, "ledger.log");
      truncateSync(logPath, statSync(logPath).size - 16);

      // When it is started again
      const restart = spawnLedgerProcess({ dataDir: dataDir.path });

      // Then it does not start, and its last words name the file, the loss and the two ways out
      await assert.rejects(restart, (error: Error) => {
        assert.match(error.message, /exited with code 1 before it was ready/);
        assert.ok(error.message.includes(`${logPath} ends at byte`), error.message);
        assert.match(error.message, /16 bytes of confirmed transactions are missing/);
        assert.match(error.message, /restore ledger\.log from a backup/);
        assert.match(error.message, /--reset/);
        return true;
      });
    } finally {
      await ledger.stop();
      dataDir.remove();
    }
  });

  test("after kill -9 at random moments, every confirmed transaction is still there", async () => {
    const ROUNDS = 12;
    const WORKERS = 3;
    const dataDir = temporaryDataDir();
    const spawn = () => spawnLedgerProcess({ dataDir: dataDir.path, snapshotEvery: 7 });
    let ledger: LedgerProcess = await spawn();
    try {
      // Given a funded payer
      const payer: KeyPairSigner = await generateKeyPairSigner();
      const funding = 1_000n * LAMPORTS_PER_SOL;
      await kitClients(ledger).airdrop({
        recipientAddress: payer.address,
        lamports: funding as never,
        commitment: "confirmed",
      });
      const confirmed: Transfer[] = [];
      const inFlight = new Map<string, Transfer>();

      for (let round = 0; round < ROUNDS; round += 1) {
        // When transfers stream in from several clients and the ledger is killed at a random moment
        const lifetime = await latestBlockhash(ledger.rpcUrl);
        let streaming = true;
        const rpcUrl = ledger.rpcUrl;
        const worker = async (): Promise<void> => {
          while (streaming) {
            const recipient = (await generateKeyPairSigner()).address;
            const lamports = 1_000_000n + BigInt(Math.floor(Math.random() * 1_000_000));
            const transaction = await signTransfer(payer, recipient, lamports, lifetime);
            const transfer = { signature: transaction.signature, recipient, lamports };
            inFlight.set(transfer.signature, transfer);
            try {
              const reply = await sendBase64(rpcUrl, transaction);
              if (reply.result !== transaction.signature)
                throw new Error(`refused: ${JSON.stringify(reply.error)}`);
              inFlight.delete(transfer.signature);
              confirmed.push(transfer);
            } catch (error) {
              if (streaming && !(error instanceof TypeError)) throw error;
              return; // the ledger is gone
            }
          }
        };
        const workers = Array.from({ length: WORKERS }, worker);
        await sleep(20 + Math.random() * 250);
        await ledger.kill9();
        streaming = false;
        await Promise.all(workers);

        // Then, restarted, it has every confirmed transfer; each in-flight one landed fully or not at all
        ledger = await spawn();
        const landed = await verifyTransfers(ledger.rpcUrl, confirmed, [...inFlight.values()]);
        for (const transfer of landed) {
          inFlight.delete(transfer.signature);
          confirmed.push(transfer);
        }
        inFlight.clear();
        const spent = confirmed.reduce((total, transfer) => total + transfer.lamports + FEE, 0n);
        const payerBalance = await result<{ value: number }>(ledger.rpcUrl, "getBalance", [payer.address]);
        assert.equal(BigInt(payerBalance.value), funding - spent, `payer balance after round ${round}`);
      }
      assert.ok(confirmed.length >= ROUNDS, `only ${confirmed.length} transfers were confirmed`);

      // And every transfer has its full history: the transaction, its metadata, the payer's signature list
      const history = new Set<string>();
      let before: string | undefined;
      for (;;) {
        const page = await result<{ signature: string }[]>(ledger.rpcUrl, "getSignaturesForAddress", [
          payer.address,
          { limit: 1000, before },
        ]);
        for (const entry of page) history.add(entry.signature);
        if (page.length < 1000) break;
        before = page[page.length - 1]!.signature;
      }
      for (const transfer of confirmed) {
        assert.ok(history.has(transfer.signature), `${transfer.signature} is in the payer's history`);
        const transaction = await result<{
          meta: { err: unknown; postBalances: number[] };
          blockTime: number;
        }>(ledger.rpcUrl, "getTransaction", [transfer.signature, { maxSupportedTransactionVersion: 0 }]);
        assert.equal(transaction.meta.err, null);
        assert.equal(BigInt(transaction.meta.postBalances[1]!), transfer.lamports);
        assert.ok(transaction.blockTime > 0);
      }
    } finally {
      await ledger.stop();
      dataDir.remove();
    }
  });
});

/**
 * Asserts that every confirmed transfer landed (status and recipient balance), and that each
 * in-flight one either landed completely or left no trace; returns those that landed.
 */
async function verifyTransfers(
  rpcUrl: string,
  confirmed: readonly Transfer[],
  inFlight: readonly Transfer[],
): Promise<Transfer[]> {
  const all = [...confirmed, ...inFlight];
  const landed: Transfer[] = [];
  for (let start = 0; start < all.length; start += 100) {
    const chunk = all.slice(start, start + 100);
    const statuses = (
      await result<{ value: ({ err: unknown } | null)[] }>(rpcUrl, "getSignatureStatuses", [
        chunk.map((transfer) => transfer.signature),
        { searchTransactionHistory: true },
      ])
    ).value;
    const accounts = (
      await result<{ value: ({ lamports: number } | null)[] }>(rpcUrl, "getMultipleAccounts", [
        chunk.map((transfer) => transfer.recipient),
        { encoding: "base64" },
      ])
    ).value;
    chunk.forEach((transfer, i) => {
      const wasConfirmed = start + i < confirmed.length;
      const status = statuses[i];
      const balance = BigInt(accounts[i]?.lamports ?? 0);
      if (wasConfirmed) {
        assert.deepEqual(status?.err, null, `confirmed transfer ${transfer.signature} is recorded`);
        assert.equal(balance, transfer.lamports, `the recipient of ${transfer.signature} kept its lamports`);
      } else if (status === null) {
        assert.equal(balance, 0n, `unrecorded transfer ${transfer.signature} left no trace`);
      } else {
        assert.equal(balance, transfer.lamports);
        landed.push(transfer);
      }
    });
  }
  return landed;
}
