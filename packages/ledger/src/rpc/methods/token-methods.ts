/**
 * SPL Token and Token-2022 reads: getTokenAccountBalance, getTokenSupply,
 * getTokenLargestAccounts, getTokenAccountsByOwner, getTokenAccountsByDelegate. Results and
 * refusals are a validator's ("Invalid param: could not find account", "Invalid param: not a
 * Token mint"...); reads wait for the batch being synced, like every account read.
 */
import type { Address, EncodedAccount } from "@solana/kit";

import { fromBase58, sortedByAddressBytes } from "../../encoding.js";
import type { Ledger } from "../../ledger/ledger.js";
import { encodeAccount, ledgerMintScales, readAccountView } from "../account-encoding.js";
import { invalidParams, RpcError, RpcErrorCode } from "../json-rpc.js";
import {
  addressParam,
  configOrCommitment,
  configParam,
  positional,
  requiredParam,
  type Config,
} from "../params.js";
import { settledSlot, withContext, type LedgerRpcMethod } from "../rpc-context.js";
import { uiTokenAmount, type MintAmountScale } from "../token-amount.js";
import {
  isTokenProgram,
  NATIVE_MINT,
  NATIVE_MINT_DECIMALS,
  readMint,
  readTokenAccount,
  TOKEN_PROGRAM,
  type TokenAccount,
} from "../../token/token-state.js";

/** As many accounts as getTokenLargestAccounts lists on a validator. */
const LARGEST_ACCOUNTS = 20;

/** A validator's wording for token refusals: "Invalid param: ..." (singular), code -32602. */
const invalidParam = (detail: string): RpcError =>
  new RpcError(RpcErrorCode.INVALID_PARAMS, `Invalid param: ${detail}`);

const present = (ledger: Ledger, address: Address): EncodedAccount | undefined => {
  const account = ledger.account(address);
  return account !== undefined && account.lamports > 0n ? account : undefined;
};

/** The token program that owns a mint and how its amounts read (wrapped SOL needs no account). */
function mintOwnerAndScale(ledger: Ledger, mint: Address): { owner: Address; scale: MintAmountScale } {
  if (mint === NATIVE_MINT) return { owner: TOKEN_PROGRAM, scale: { decimals: NATIVE_MINT_DECIMALS } };
  const account = present(ledger, mint);
  if (account === undefined) throw invalidParam("could not find mint");
  const scale = ledgerMintScales(ledger)(mint);
  if (scale === undefined) throw invalidParam("Token mint could not be unpacked");
  return { owner: account.programAddress, scale };
}

/** The `{ mint }` or `{ programId }` filter of getTokenAccountsBy*: the program to scan, and the mint if any. */
function tokenProgramAndMint(ledger: Ledger, value: unknown): { program: Address; mint?: Address } {
  const filter = value as Config;
  const keys = typeof value === "object" && value !== null ? Object.keys(filter) : [];
  if (keys.length !== 1 || (keys[0] !== "mint" && keys[0] !== "programId")) {
    throw invalidParams("the filter must be { mint: address } or { programId: address }");
  }
  if (keys[0] === "mint") {
    const mint = addressParam(filter.mint, "mint");
    const { owner } = mintOwnerAndScale(ledger, mint);
    if (!isTokenProgram(owner)) throw invalidParam("not a Token mint");
    return { program: owner, mint };
  }
  const program = addressParam(filter.programId, "programId");
  if (!isTokenProgram(program)) throw invalidParam("unrecognized Token program id");
  return { program };
}

/** The initialized token accounts of a program, ordered by address, that pass `keep`. */
function tokenAccounts(
  ledger: Ledger,
  program: Address,
  keep: (account: TokenAccount) => boolean,
): { account: EncodedAccount; state: TokenAccount }[] {
  return sortedByAddressBytes(
    ledger
      .programAccounts(program)
      .filter((account) => account.lamports > 0n)
      .map((account) => ({ account, state: readTokenAccount(account.data as Uint8Array) }))
      .filter((entry): entry is { account: EncodedAccount; state: TokenAccount } =>
        entry.state === undefined ? false : keep(entry.state),
      ),
    (entry) => entry.account.address,
  );
}

/** getTokenAccountsByOwner and getTokenAccountsByDelegate differ only in whose accounts they list. */
const tokenAccountsBy =
  (
    method: string,
    role: string,
    belongsTo: (account: TokenAccount, key: Address) => boolean,
  ): LedgerRpcMethod =>
  async (params, { ledger }) => {
    const args = positional(params, method, 3);
    const key = addressParam(requiredParam(args, 0, role), role);
    const filter = requiredParam(args, 1, "filter");
    const config = configParam(args, 2, method);
    const view = readAccountView(config, "binary");
    const slot = await settledSlot(ledger, config);
    const { program, mint } = tokenProgramAndMint(ledger, filter);
    const mintScales = ledgerMintScales(ledger);
    const accounts = tokenAccounts(
      ledger,
      program,
      (state) => belongsTo(state, key) && (mint === undefined || state.mint === mint),
    )
      .map(({ account }) => ({
        pubkey: account.address,
        account: encodeAccount(account, view, mintScales),
      }))
      // As on a validator, jsonParsed lists only the accounts it could parse.
      .filter(({ account }) => view.encoding !== "jsonParsed" || !Array.isArray(account.data));
    return withContext(slot, accounts);
  };

/** Descending by amount, then by address bytes, as a validator orders its largest accounts. */
function largestFirst(
  a: { amount: bigint; key: Uint8Array },
  b: { amount: bigint; key: Uint8Array },
): number {
  if (a.amount !== b.amount) return a.amount > b.amount ? -1 : 1;
  for (let i = 0; i < a.key.length; i += 1) {
    if (a.key[i] !== b.key[i]) return b.key[i]! - a.key[i]!;
  }
  return 0;
}

export const tokenMethods: Record<string, LedgerRpcMethod> = {
  getTokenAccountBalance: async (params, { ledger }) => {
    const args = positional(params, "getTokenAccountBalance", 2);
    const address = addressParam(requiredParam(args, 0, "pubkey"), "pubkey");
    const config = configOrCommitment(args, 1, "getTokenAccountBalance");
    const slot = await settledSlot(ledger, config);
    const account = present(ledger, address);
    if (account === undefined) throw invalidParam("could not find account");
    const state = isTokenProgram(account.programAddress)
      ? readTokenAccount(account.data as Uint8Array)
      : undefined;
    if (state === undefined) throw invalidParam("not a Token account");
    const { scale } = mintOwnerAndScale(ledger, state.mint);
    return withContext(slot, uiTokenAmount(state.amount, scale));
  },

  getTokenSupply: async (params, { ledger }) => {
    const args = positional(params, "getTokenSupply", 2);
    const address = addressParam(requiredParam(args, 0, "mint"), "mint");
    const config = configOrCommitment(args, 1, "getTokenSupply");
    const slot = await settledSlot(ledger, config);
    const account = present(ledger, address);
    if (account === undefined) throw invalidParam("could not find account");
    if (!isTokenProgram(account.programAddress)) throw invalidParam("not a Token mint");
    const mint = readMint(account.data as Uint8Array);
    const scale = ledgerMintScales(ledger)(address);
    if (mint === undefined || scale === undefined) throw invalidParam("mint could not be unpacked");
    return withContext(slot, uiTokenAmount(mint.supply, scale));
  },

  getTokenLargestAccounts: async (params, { ledger }) => {
    const args = positional(params, "getTokenLargestAccounts", 2);
    const mint = addressParam(requiredParam(args, 0, "mint"), "mint");
    const config = configOrCommitment(args, 1, "getTokenLargestAccounts");
    const slot = await settledSlot(ledger, config);
    const { owner, scale } = mintOwnerAndScale(ledger, mint);
    if (!isTokenProgram(owner)) throw invalidParam("not a Token mint");
    const largest = tokenAccounts(ledger, owner, (state) => state.mint === mint)
      .map(({ account, state }) => ({
        address: account.address,
        amount: state.amount,
        key: fromBase58(account.address),
      }))
      .sort(largestFirst)
      .slice(0, LARGEST_ACCOUNTS);
    return withContext(
      slot,
      largest.map(({ address, amount }) => ({ address, ...uiTokenAmount(amount, scale) })),
    );
  },

  getTokenAccountsByOwner: tokenAccountsBy(
    "getTokenAccountsByOwner",
    "owner",
    (account, owner) => account.owner === owner,
  ),

  getTokenAccountsByDelegate: tokenAccountsBy(
    "getTokenAccountsByDelegate",
    "delegate",
    (account, delegate) => account.delegate === delegate,
  ),
};
