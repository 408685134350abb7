/**
 * A ledger process as the @solana/web3.js-driven tests reach it: a Connection to its JSON-RPC and
 * WebSocket addresses, and payers funded from its faucet.
 */
import { Connection, Keypair, LAMPORTS_PER_SOL } from "@solana/web3.js";

import { sleep, startLedgerProcess, type LedgerUnderTest } from "./ledger-under-test.js";

/** A new keypair holding `sol` SOL from the ledger's faucet. */
export async function fundedPayer(connection: Connection, sol = 1): Promise<Keypair> {
  const payer = Keypair.generate();
  const signature = await connection.requestAirdrop(payer.publicKey, sol * LAMPORTS_PER_SOL);
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) });
  return payer;
}

export type Web3Ledger = Readonly<{
  ledger: LedgerUnderTest;
  connection: Connection;
  /** Holds 100 SOL. */
  payer: Keypair;
  stop: () => Promise<void>;
}>;

/** A new ledger process, a confirmed-commitment Connection to it and a funded payer. */
export async function startWeb3Ledger(): Promise<Web3Ledger> {
  const ledger = await startLedgerProcess();
  const connection = new Connection(ledger.rpcUrl, { commitment: "confirmed", wsEndpoint: ledger.wsUrl });
  return {
    ledger,
    connection,
    payer: await fundedPayer(connection, 100),
    stop: async () => {
      // web3.js closes its idle socket 500 ms after the last subscription ends; let it, or it
      // would keep reconnecting to the stopped ledger.
      await sleep(700);
      await ledger.dispose();
    },
  };
}
