/**
 * litesvm's native binding, which takes addresses and transactions as bytes. The `LiteSVM` class
 * wraps it with base58 addresses and kit transactions, re-encoding each on every call; the ledger
 * already holds the bytes (the wire transaction, its account keys), so its hot path skips that.
 */
import { Account, type FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from "litesvm";
import type { LiteSvm } from "litesvm/dist/internal.js";

export type NativeSvm = LiteSvm;

/** The binding inside a `LiteSVM`; it is not part of litesvm's public interface, so its absence is named. */
export function nativeSvm(svm: LiteSVM): NativeSvm {
  const inner = (svm as unknown as { inner?: NativeSvm }).inner;
  if (inner === undefined || typeof inner.sendLegacyTransaction !== "function") {
    throw new Error(
      "This litesvm version has no native binding at LiteSVM.inner; install the litesvm version in package-lock.json",
    );
  }
  return inner;
}

/** Executes wire bytes of either version, as `LiteSVM.sendTransaction` does after re-encoding. */
export function sendWireTransaction(
  native: NativeSvm,
  bytes: Uint8Array,
  legacy: boolean,
): TransactionMetadata | FailedTransactionMetadata {
  return legacy ? native.sendLegacyTransaction(bytes) : native.sendVersionedTransaction(bytes);
}

/** Sets an account's lamports, keeping its data, owner, executable flag and rent epoch. */
export function setLamports(native: NativeSvm, address: Uint8Array, lamports: bigint): void {
  const account = native.getAccount(address);
  if (account === null) return;
  native.setAccount(
    address,
    new Account(lamports, account.data(), account.owner(), account.executable(), account.rentEpoch()),
  );
}
