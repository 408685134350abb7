/**
 * A real local ledger for end-to-end tests: `@abas/ledger` started as a separate process (its
 * `abas-ledger` bin, on free ports, with the program deployed and initialized), reached only over
 * HTTP JSON-RPC, exactly as a user's client reaches devnet.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { spawnLedgerProcess } from "@abas/ledger";
import {
  address,
  createKeyPairSignerFromBytes,
  createSolanaRpc,
  lamports,
  type Address,
  type Rpc,
  type SolanaRpcApi,
} from "@solana/kit";

import { generateSecretKey } from "../../keypair.js";

export const ONE_SOL = 1_000_000_000n;

export type TestLedger = Readonly<{
  /** The ledger's process. */
  pid: number;
  rpcUrl: string;
  programId: Address;
  rpc: Rpc<SolanaRpcApi>;
  stop: () => Promise<void>;
}>;

/** A ledger process of its own; `slotMs` sets how long each slot lasts (default the ledger's). */
export async function startTestLedger(options: { slotMs?: number } = {}): Promise<TestLedger> {
  const dataDir = mkdtempSync(join(tmpdir(), "abas-sdk-ledger-"));
  const ledger = await spawnLedgerProcess({ dataDir, ...options });
  return {
    pid: ledger.pid,
    rpcUrl: ledger.rpcUrl,
    programId: address(ledger.programId),
    rpc: createSolanaRpc(ledger.rpcUrl),
    stop: async () => {
      await ledger.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Airdrops `amount` lamports to `recipient` and waits until the balance shows them. */
export async function airdrop(ledger: TestLedger, recipient: Address, amount = 10n * ONE_SOL): Promise<void> {
  const before = (await ledger.rpc.getBalance(recipient).send()).value;
  await ledger.rpc.requestAirdrop(recipient, lamports(amount)).send();
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await ledger.rpc.getBalance(recipient).send()).value >= before + amount) return;
    await sleep(50);
  }
  throw new Error(`the airdrop to ${recipient} did not arrive`);
}

/** A new secret key whose account holds `amount` lamports. */
export async function fundedSecretKey(ledger: TestLedger, amount = 10n * ONE_SOL): Promise<Uint8Array> {
  const secretKey = generateSecretKey();
  const signer = await createKeyPairSignerFromBytes(secretKey);
  await airdrop(ledger, signer.address, amount);
  return secretKey;
}

export async function addressOf(secretKey: Uint8Array): Promise<Address> {
  return (await createKeyPairSignerFromBytes(secretKey)).address;
}
