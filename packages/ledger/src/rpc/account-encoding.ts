/**
 * Accounts as the JSON-RPC API returns them: `{ data, executable, lamports, owner, rentEpoch,
 * space }`, with the data in the requested encoding. `jsonParsed` decodes the accounts of SPL
 * Token and Token-2022 (token-account-data.ts), the sysvars (sysvar-account-data.ts), durable
 * nonces (nonce-account-data.ts), stake accounts (stake-account-data.ts), the upgradeable loader's
 * (upgradeable-loader-account-data.ts) and address lookup tables
 * (address-lookup-table-account-data.ts); other accounts, which have no
 * parser here, fall back to base64, as a validator does for accounts it cannot parse.
 */
import type { Address, EncodedAccount } from "@solana/kit";

import { SYSVAR_OWNER, type Ledger } from "../ledger/ledger.js";
import { toBase58, toBase64 } from "../encoding.js";
import { invalidParams, RpcError, RpcErrorCode } from "./json-rpc.js";
import { optionalEnum, type Config } from "./params.js";
import { ADDRESS_LOOKUP_TABLE_PROGRAM } from "../transactions/address-lookup-tables.js";
import { parseAddressLookupTableAccountData } from "./address-lookup-table-account-data.js";
import { parseNonceAccountData } from "./nonce-account-data.js";
import { parseStakeAccountData } from "./stake-account-data.js";
import { STAKE_PROGRAM } from "./stake-instruction.js";
import { parseSysvarAccountData } from "./sysvar-account-data.js";
import { SYSTEM_PROGRAM } from "./system-instruction.js";
import { parseUpgradeableLoaderAccountData, UPGRADEABLE_LOADER } from "./upgradeable-loader-account-data.js";
import { mintAmountScaleOf, type MintAmountScale } from "./token-amount.js";
import { parseTokenAccountData, type MintAmountScales } from "./token-account-data.js";
import { isTokenProgram } from "../token/token-state.js";

export type AccountEncoding = "binary" | "base58" | "base64" | "jsonParsed";

/** Every account is rent-exempt now, and validators report u64::MAX for them. */
export const RENT_EXEMPT_RENT_EPOCH = 18_446_744_073_709_551_615n;
/** base58 is quadratic; validators refuse it above this size. */
const MAX_BASE58_BYTES = 128;

export interface DataSlice {
  readonly offset: number;
  readonly length: number;
}

export interface AccountView {
  readonly encoding: AccountEncoding;
  readonly dataSlice?: DataSlice;
}

export function readAccountView(config: Config, defaultEncoding: AccountEncoding): AccountView {
  if (config.encoding === "base64+zstd") {
    throw invalidParams('the "base64+zstd" encoding is not supported by this ledger; use "base64"');
  }
  const encoding = optionalEnum(config, "encoding", ["binary", "base58", "base64", "jsonParsed"] as const);
  const slice = config.dataSlice;
  if (slice === undefined || slice === null) return { encoding: encoding ?? defaultEncoding };
  const { offset, length } = slice as { offset?: unknown; length?: unknown };
  if (
    typeof slice !== "object" ||
    typeof offset !== "number" ||
    typeof length !== "number" ||
    !Number.isInteger(offset) ||
    !Number.isInteger(length) ||
    offset < 0 ||
    length < 0
  ) {
    throw invalidParams("dataSlice must be { offset, length } with non-negative integers");
  }
  return { encoding: encoding ?? defaultEncoding, dataSlice: { offset, length } };
}

/** An account's data in jsonParsed: the program whose parser read it, its parsed form, its size. */
export interface ParsedAccountData {
  readonly program:
    | "spl-token"
    | "spl-token-2022"
    | "sysvar"
    | "nonce"
    | "stake"
    | "bpf-upgradeable-loader"
    | "address-lookup-table";
  /** `info` is absent for a state without fields (an uninitialized loader account). */
  readonly parsed: { readonly type: string; readonly info?: unknown };
  readonly space: bigint;
}

export interface RpcAccount {
  readonly data: string | readonly [string, string] | ParsedAccountData;
  readonly executable: boolean;
  readonly lamports: bigint;
  readonly owner: string;
  readonly rentEpoch: bigint;
  readonly space: bigint;
}

/**
 * How the amounts of the mints the ledger holds read now, at the current slot's time (wrapped
 * SOL's are known without its account); `accountOf` reads the accounts (the ledger's by default).
 * Each mint is read once, however many of its token accounts a response shows.
 */
export function ledgerMintScales(
  ledger: Pick<Ledger, "account" | "blockTime" | "currentSlot">,
  accountOf: (address: Address) => EncodedAccount | undefined = (address) => ledger.account(address),
): MintAmountScales {
  // Read once, when a token account first needs it: most encodings parse no token account.
  let now: bigint | undefined;
  const scales = new Map<Address, MintAmountScale | undefined>();
  return (mint) => {
    if (!scales.has(mint)) {
      const scale = mintAmountScaleOf(
        mint,
        (address) => accountOf(address)?.data as Uint8Array | undefined,
        (now ??= ledger.blockTime(ledger.currentSlot()) ?? 0n),
      );
      scales.set(mint, scale);
    }
    return scales.get(mint);
  };
}

function parsedData(account: EncodedAccount, mintScales: MintAmountScales): ParsedAccountData | undefined {
  const data = account.data as Uint8Array;
  switch (account.programAddress) {
    case SYSVAR_OWNER:
      return parseSysvarAccountData(account.address, data);
    case SYSTEM_PROGRAM:
      return parseNonceAccountData(data);
    case UPGRADEABLE_LOADER:
      return parseUpgradeableLoaderAccountData(data);
    case ADDRESS_LOOKUP_TABLE_PROGRAM:
      return parseAddressLookupTableAccountData(data);
    case STAKE_PROGRAM:
      return parseStakeAccountData(data);
    default:
      return isTokenProgram(account.programAddress)
        ? parseTokenAccountData(account.programAddress, data, mintScales)
        : undefined;
  }
}

export function encodeAccount(
  account: EncodedAccount,
  view: AccountView,
  mintScales: MintAmountScales,
): RpcAccount {
  const full = account.data as Uint8Array;
  const parsed = view.encoding === "jsonParsed" ? parsedData(account, mintScales) : undefined;
  const data =
    view.dataSlice === undefined
      ? full
      : full.subarray(view.dataSlice.offset, view.dataSlice.offset + view.dataSlice.length);
  let encoded: RpcAccount["data"];
  if (parsed !== undefined) {
    encoded = parsed;
  } else if (view.encoding === "base64" || view.encoding === "jsonParsed") {
    encoded = [toBase64(data), "base64"];
  } else {
    if (data.length > MAX_BASE58_BYTES) {
      throw new RpcError(
        RpcErrorCode.INVALID_REQUEST,
        "Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.",
      );
    }
    encoded = view.encoding === "binary" ? toBase58(data) : [toBase58(data), "base58"];
  }
  return {
    data: encoded,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.programAddress,
    rentEpoch: RENT_EXEMPT_RENT_EPOCH,
    space: BigInt(full.length),
  };
}
