/**
 * SPL Token and Token-2022 account state: the base layouts of mints (82 bytes) and token
 * accounts (165 bytes), which both programs share. A Token-2022 account with extensions is longer:
 * byte 165 says what it is (1 mint, 2 token account) and the extensions follow; of them only the
 * two that change how a mint's amounts read (interest-bearing, scaled UI amount) are decoded.
 * Every reader returns undefined for data that is not what it asks for.
 */
import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";

export const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" as Address;
export const TOKEN_2022_PROGRAM = "TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb" as Address;
/** Wrapped SOL: validators know its decimals (9) even where the mint account is absent. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112" as Address;
export const NATIVE_MINT_DECIMALS = 9;

export const isTokenProgram = (owner: string): boolean =>
  owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;

const MINT_LENGTH = 82;
export const TOKEN_ACCOUNT_LENGTH = 165;
export const MULTISIG_LENGTH = 355;
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

/** Offsets inside a token account, as getTokenAccountsBy* filter on them. */
export const TOKEN_ACCOUNT_MINT_OFFSET = 0;
export const TOKEN_ACCOUNT_OWNER_OFFSET = 32;

/** Token-2022's ExtensionType, by its u16 value, as validators name them. */
export const EXTENSION_TYPE_NAMES = [
  "uninitialized",
  "transferFeeConfig",
  "transferFeeAmount",
  "mintCloseAuthority",
  "confidentialTransferMint",
  "confidentialTransferAccount",
  "defaultAccountState",
  "immutableOwner",
  "memoTransfer",
  "nonTransferable",
  "interestBearingConfig",
  "cpiGuard",
  "permanentDelegate",
  "nonTransferableAccount",
  "transferHook",
  "transferHookAccount",
  "confidentialTransferFeeConfig",
  "confidentialTransferFeeAmount",
  "metadataPointer",
  "tokenMetadata",
  "groupPointer",
  "tokenGroup",
  "groupMemberPointer",
  "tokenGroupMember",
  "confidentialMintBurn",
  "scaledUiAmount",
  "pausable",
  "pausableAccount",
  "permissionedBurn",
] as const;

export type TokenAccountState = "uninitialized" | "initialized" | "frozen";

export interface Mint {
  readonly mintAuthority: Address | null;
  readonly supply: bigint;
  readonly decimals: number;
  readonly isInitialized: boolean;
  readonly freezeAuthority: Address | null;
}

export interface TokenAccount {
  readonly mint: Address;
  readonly owner: Address;
  readonly amount: bigint;
  readonly delegate: Address | null;
  readonly state: TokenAccountState;
  /** The rent-exempt reserve of a wrapped-SOL account, or null. */
  readonly isNative: bigint | null;
  readonly delegatedAmount: bigint;
  readonly closeAuthority: Address | null;
}

const STATES: readonly TokenAccountState[] = ["uninitialized", "initialized", "frozen"];

function reader(data: Uint8Array) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const key = (at: number): Address => toBase58(data.subarray(at, at + 32)) as Address;
  return {
    u64: (at: number): bigint => view.getBigUint64(at, true),
    key,
    /** A COption<Pubkey>: a u32 tag, then the key. */
    optionalKey: (at: number): Address | null => (view.getUint32(at, true) === 1 ? key(at + 4) : null),
    /** A COption<u64>. */
    optionalU64: (at: number): bigint | null =>
      view.getUint32(at, true) === 1 ? view.getBigUint64(at + 4, true) : null,
  };
}

/** Whether the data is laid out as a mint: the base alone, or Token-2022's base, padding and type byte. */
const hasMintLayout = (data: Uint8Array): boolean =>
  data.length === MINT_LENGTH ||
  (data.length > TOKEN_ACCOUNT_LENGTH &&
    data.length !== MULTISIG_LENGTH &&
    data[TOKEN_ACCOUNT_LENGTH] === ACCOUNT_TYPE_MINT);

/** A mint's layout with its `is_initialized` byte set: checked without decoding its keys. */
const isInitializedMint = (data: Uint8Array): boolean => hasMintLayout(data) && data[45] === 1;

const hasTokenAccountLayout = (data: Uint8Array): boolean =>
  data.length === TOKEN_ACCOUNT_LENGTH ||
  (data.length > TOKEN_ACCOUNT_LENGTH &&
    data.length !== MULTISIG_LENGTH &&
    data[TOKEN_ACCOUNT_LENGTH] === ACCOUNT_TYPE_ACCOUNT);

/** An initialized mint, or undefined. */
export function readMint(data: Uint8Array): Mint | undefined {
  if (!isInitializedMint(data)) return undefined;
  const read = reader(data);
  return {
    mintAuthority: read.optionalKey(0),
    supply: read.u64(36),
    decimals: data[44]!,
    isInitialized: true,
    freezeAuthority: read.optionalKey(46),
  };
}

/** An initialized (or frozen) token account, or undefined. */
export function readTokenAccount(data: Uint8Array): TokenAccount | undefined {
  if (!hasTokenAccountLayout(data)) return undefined;
  const state = STATES[data[108]!];
  if (state === undefined || state === "uninitialized") return undefined;
  const read = reader(data);
  return {
    mint: read.key(0),
    owner: read.key(32),
    amount: read.u64(64),
    delegate: read.optionalKey(72),
    state,
    isNative: read.optionalU64(109),
    delegatedAmount: read.u64(121),
    closeAuthority: read.optionalKey(129),
  };
}

/** The TLV entries of a Token-2022 account's extensions, up to the first unused one. */
function* extensionEntries(data: Uint8Array): Generator<{ type: number; value: Uint8Array }> {
  if (data.length <= TOKEN_ACCOUNT_LENGTH + 1 || data.length === MULTISIG_LENGTH) return;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let offset = TOKEN_ACCOUNT_LENGTH + 1;
  while (offset + 4 <= data.length) {
    const type = view.getUint16(offset, true);
    const length = view.getUint16(offset + 2, true);
    if (type === 0 || offset + 4 + length > data.length) return;
    yield { type, value: data.subarray(offset + 4, offset + 4 + length) };
    offset += 4 + length;
  }
}

/**
 * The Token-2022 extension types an account carries, by their u16 value, in the order its TLV
 * entries hold them (up to the first unused entry). Empty for base-only data.
 */
export function extensionTypesOf(data: Uint8Array): number[] {
  return [...extensionEntries(data)].map(({ type }) => type);
}

/** The value of a mint's extension of `type` when it has the expected length. */
function mintExtension(data: Uint8Array, type: number, length: number): DataView | undefined {
  if (!isInitializedMint(data)) return undefined;
  for (const entry of extensionEntries(data)) {
    if (entry.type === type && entry.value.length === length)
      return new DataView(entry.value.buffer, entry.value.byteOffset, entry.value.byteLength);
  }
  return undefined;
}

/** Token-2022's InterestBearingConfig: continuously compounded interest shown in UI amounts. */
export interface InterestBearingConfig {
  readonly initializationTimestamp: bigint;
  /** Basis points a year, from initialization to the last update. */
  readonly preUpdateAverageRate: number;
  readonly lastUpdateTimestamp: bigint;
  /** Basis points a year since the last update. */
  readonly currentRate: number;
}

/** Token-2022's ScaledUiAmountConfig: a multiplier for UI amounts, and the next one with its start. */
export interface ScaledUiAmountConfig {
  readonly multiplier: number;
  readonly newMultiplierEffectiveTimestamp: bigint;
  readonly newMultiplier: number;
}

const INTEREST_BEARING_CONFIG = EXTENSION_TYPE_NAMES.indexOf("interestBearingConfig");
const SCALED_UI_AMOUNT = EXTENSION_TYPE_NAMES.indexOf("scaledUiAmount");

/** A mint's InterestBearingConfig (after its 32-byte rate authority), or undefined. */
export function readInterestBearingConfig(data: Uint8Array): InterestBearingConfig | undefined {
  const view = mintExtension(data, INTEREST_BEARING_CONFIG, 32 + 8 + 2 + 8 + 2);
  return view === undefined
    ? undefined
    : {
        initializationTimestamp: view.getBigInt64(32, true),
        preUpdateAverageRate: view.getInt16(40, true),
        lastUpdateTimestamp: view.getBigInt64(42, true),
        currentRate: view.getInt16(50, true),
      };
}

/** A mint's ScaledUiAmountConfig (after its 32-byte authority), or undefined. */
export function readScaledUiAmountConfig(data: Uint8Array): ScaledUiAmountConfig | undefined {
  const view = mintExtension(data, SCALED_UI_AMOUNT, 32 + 8 + 8 + 8);
  return view === undefined
    ? undefined
    : {
        multiplier: view.getFloat64(32, true),
        newMultiplierEffectiveTimestamp: view.getBigInt64(40, true),
        newMultiplier: view.getFloat64(48, true),
      };
}

/**
 * The decimals of a mint, with its data, read through `mintData` (the data of the account at an
 * address, if any) without decoding its keys; wrapped SOL's are known without its account (no
 * data then), as on a validator. Undefined when the address holds no initialized mint.
 */
export function mintDecimalsAndData(
  mint: Address,
  mintData: (address: Address) => Uint8Array | undefined,
): { decimals: number; data?: Uint8Array } | undefined {
  if (mint === NATIVE_MINT) return { decimals: NATIVE_MINT_DECIMALS };
  const data = mintData(mint);
  return data !== undefined && isInitializedMint(data) ? { decimals: data[44]!, data } : undefined;
}

/** The mint a token account belongs to, read without decoding the rest. */
export function tokenAccountMint(data: Uint8Array): Address | undefined {
  return hasTokenAccountLayout(data) && data[108] !== 0 ? reader(data).key(0) : undefined;
}

/**
 * Wrapped SOL's mint as clusters hold it from genesis: no authorities, no supply, 9 decimals.
 * Wrapped-SOL accounts (and the Associated Token Account program creating them) need it.
 */
export function nativeMintData(): Uint8Array {
  const data = new Uint8Array(MINT_LENGTH);
  data[44] = NATIVE_MINT_DECIMALS;
  data[45] = 1;
  return data;
}
