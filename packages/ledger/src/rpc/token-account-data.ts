/**
 * `jsonParsed` data of accounts owned by SPL Token or Token-2022, in a validator's shape:
 * `{ program: "spl-token" | "spl-token-2022", parsed: { type: "account" | "mint" | "multisig",
 * info }, space }`. A token account's amounts need its mint (`MintAmountScale`); without it (or for
 * data that is none of the three) there is no parsed form and the caller falls back to base64,
 * as a validator does. Token-2022 extensions are listed by name (`{ extension }`), which is all
 * a validator shows of the stateless ones (immutableOwner, nonTransferable...); the state that
 * a validator adds for the others (`state`) is not decoded here.
 */
import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";
import type { ParsedAccountData } from "./account-encoding.js";
import { uiTokenAmount, type MintAmountScale } from "./token-amount.js";
import {
  EXTENSION_TYPE_NAMES,
  extensionTypesOf,
  MULTISIG_LENGTH,
  readMint,
  readTokenAccount,
  TOKEN_2022_PROGRAM,
  type TokenAccount,
} from "../token/token-state.js";

/** How the amounts of a mint read, or undefined when the address holds no mint. */
export type MintAmountScales = (mint: Address) => MintAmountScale | undefined;

const MULTISIG_SIGNER_SLOTS = 11;

function tokenAccountInfo(account: TokenAccount, scale: MintAmountScale): Record<string, unknown> {
  return {
    mint: account.mint,
    owner: account.owner,
    tokenAmount: uiTokenAmount(account.amount, scale),
    ...(account.delegate === null ? {} : { delegate: account.delegate }),
    state: account.state,
    isNative: account.isNative !== null,
    ...(account.isNative === null ? {} : { rentExemptReserve: uiTokenAmount(account.isNative, scale) }),
    ...(account.delegate === null ? {} : { delegatedAmount: uiTokenAmount(account.delegatedAmount, scale) }),
    ...(account.closeAuthority === null ? {} : { closeAuthority: account.closeAuthority }),
  };
}

/**
 * The names a validator's account decoder gives extensions where they differ from the extension
 * types' own names (which instructions such as getAccountDataSize use).
 */
const ACCOUNT_EXTENSION_NAMES: Readonly<Record<string, string>> = {
  scaledUiAmount: "scaledUiAmountConfig",
  pausable: "pausableConfig",
  permissionedBurn: "permissionedBurnConfig",
};

/** `extensions: [{ extension }]` when the account has any, as validators list them. */
function extensionsOf(data: Uint8Array): { extensions?: { extension: string }[] } {
  const types = extensionTypesOf(data);
  if (types.length === 0) return {};
  return {
    extensions: types.map((type) => {
      const name = EXTENSION_TYPE_NAMES[type];
      return {
        extension: name === undefined ? "unparseableExtension" : (ACCOUNT_EXTENSION_NAMES[name] ?? name),
      };
    }),
  };
}

function multisigInfo(data: Uint8Array): Record<string, unknown> | undefined {
  if (data.length !== MULTISIG_LENGTH || data[2] !== 1) return undefined;
  const signers: string[] = [];
  for (let slot = 0; slot < MULTISIG_SIGNER_SLOTS; slot += 1) {
    const key = data.subarray(3 + slot * 32, 3 + (slot + 1) * 32);
    if (key.some((byte) => byte !== 0)) signers.push(toBase58(key));
  }
  return { numRequiredSigners: data[0], numValidSigners: data[1], isInitialized: true, signers };
}

function parse(data: Uint8Array, mintScales: MintAmountScales): ParsedAccountData["parsed"] | undefined {
  const account = readTokenAccount(data);
  if (account !== undefined) {
    const scale = mintScales(account.mint);
    if (scale === undefined) return undefined;
    return { type: "account", info: { ...tokenAccountInfo(account, scale), ...extensionsOf(data) } };
  }
  const mint = readMint(data);
  if (mint !== undefined) {
    return {
      type: "mint",
      info: {
        mintAuthority: mint.mintAuthority,
        supply: mint.supply.toString(),
        decimals: mint.decimals,
        isInitialized: mint.isInitialized,
        freezeAuthority: mint.freezeAuthority,
        ...extensionsOf(data),
      },
    };
  }
  const multisig = multisigInfo(data);
  return multisig === undefined ? undefined : { type: "multisig", info: multisig };
}

/** The parsed form of data owned by `owner` (a token program), or undefined. */
export function parseTokenAccountData(
  owner: Address,
  data: Uint8Array,
  mintScales: MintAmountScales,
): ParsedAccountData | undefined {
  const parsed = parse(data, mintScales);
  if (parsed === undefined) return undefined;
  return {
    program: owner === TOKEN_2022_PROGRAM ? "spl-token-2022" : "spl-token",
    parsed,
    space: BigInt(data.length),
  };
}
