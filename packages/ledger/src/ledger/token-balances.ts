/**
 * The token balances a validator records around a transaction (`preTokenBalances`,
 * `postTokenBalances`): every account of the transaction that is an SPL Token or Token-2022
 * account, with its mint, owner, program and amount in the mint's decimals. Only transactions
 * that name a token program among their accounts can move tokens, so only they are read; the
 * others (attestations among them) pay one comparison per account key.
 */
import type { Address } from "@solana/kit";

import { fromBase58, toBase58 } from "../encoding.js";
import { isTokenProgram, mintDecimalsAndData, readTokenAccount } from "../token/token-state.js";
import type { TokenBalance } from "../transactions/transaction-meta.js";
import type { NativeSvm } from "./native-svm.js";

export const namesTokenProgram = (accountKeys: readonly Address[]): boolean =>
  accountKeys.some(isTokenProgram);

const mintDataIn =
  (native: NativeSvm) =>
  (mint: Address): Uint8Array | undefined =>
    native.getAccount(fromBase58(mint))?.data();

/** The token accounts among `keyBytes` (indexed as the transaction's accounts), as they are now. */
export function readTokenBalances(native: NativeSvm, keyBytes: readonly Uint8Array[]): TokenBalance[] {
  const balances: TokenBalance[] = [];
  keyBytes.forEach((key, accountIndex) => {
    const account = native.getAccount(key);
    if (account === null || account.lamports() === 0n) return;
    const programId = toBase58(account.owner()) as Address;
    if (!isTokenProgram(programId)) return;
    const state = readTokenAccount(account.data());
    if (state === undefined) return;
    // Like a validator, an account whose mint cannot be read has no balance to show.
    const decimals = mintDecimalsAndData(state.mint, mintDataIn(native))?.decimals;
    if (decimals === undefined) return;
    balances.push({
      accountIndex,
      mint: state.mint,
      owner: state.owner,
      programId,
      amount: state.amount,
      decimals,
    });
  });
  return balances;
}
