/**
 * Which ledger this is, from its genesis hash: the CAIP-2 chain id the Actions headers announce
 * (`solana:` + the first 32 characters of the genesis hash) and the chain a Sign-In With Solana
 * message names (the Wallet Standard's `solana:mainnet`, `solana:devnet`, `solana:testnet`, and
 * `solana:localnet` for any other ledger, such as the local one).
 */
import { createSolanaRpc } from "@solana/kit";

export type SignInChainId = "solana:mainnet" | "solana:devnet" | "solana:testnet" | "solana:localnet";

export interface LedgerIdentity {
  readonly genesisHash: string;
  /** CAIP-2, e.g. `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` for mainnet-beta. */
  readonly blockchainId: string;
  readonly signInChainId: SignInChainId;
}

const KNOWN_CLUSTERS: Record<string, SignInChainId> = {
  "5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp": "solana:mainnet",
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1: "solana:devnet",
  "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z": "solana:testnet",
};

export function ledgerIdentityOf(genesisHash: string): LedgerIdentity {
  const reference = genesisHash.slice(0, 32);
  return {
    genesisHash,
    blockchainId: `solana:${reference}`,
    signInChainId: KNOWN_CLUSTERS[reference] ?? "solana:localnet",
  };
}

/** After a failed attempt, callers get that failure for this long before the ledger is asked again. */
const RETRY_AFTER_MS = 5_000;

/** The ledger did not tell its genesis hash. */
export class LedgerIdentityUnavailable extends Error {
  override readonly name = "LedgerIdentityUnavailable";
}

const GENESIS_HASH_TIMEOUT_MS = 5_000;

async function readGenesisHash(rpcUrl: string): Promise<string> {
  try {
    return await createSolanaRpc(rpcUrl)
      .getGenesisHash()
      .send({ abortSignal: AbortSignal.timeout(GENESIS_HASH_TIMEOUT_MS) });
  } catch (error) {
    throw new LedgerIdentityUnavailable(
      `the ledger RPC node does not answer getGenesisHash: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Asks the ledger once and remembers the answer; a failure is remembered only briefly. */
export function createLedgerIdentityReader(rpcUrl: string): () => Promise<LedgerIdentity> {
  let known: Promise<LedgerIdentity> | undefined;
  return () => {
    if (known === undefined) {
      const attempt = readGenesisHash(rpcUrl).then(ledgerIdentityOf);
      known = attempt;
      attempt.catch(() => {
        setTimeout(() => {
          if (known === attempt) known = undefined;
        }, RETRY_AFTER_MS).unref();
      });
    }
    return known;
  };
}
