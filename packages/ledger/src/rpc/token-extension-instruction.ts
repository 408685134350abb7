/**
 * `jsonParsed` decoding of Token-2022's extension instructions (tags 25 and up), in the shapes a
 * validator's parser gives them: the mint close authority, transfer fees, default account state,
 * reallocate, required memos, the native mint, non-transferable mints, interest-bearing mints, the
 * CPI guard, permanent delegates, transfer hooks, withdrawing excess lamports, the metadata, group
 * and group member pointers, scaled UI amounts and pausable mints. The confidential transfer
 * extensions (tags 27, 37 and 42) are not decoded here: they come back partially decoded.
 *
 * An extension instruction's second byte picks one of its instructions. Those whose fields are
 * fixed-size (an optional key there is 32 bytes, all zero for none) must be exactly that long.
 */
import type { Address } from "@solana/kit";

import { accountsOf, NotDecodable } from "./instruction-data.js";
import { uiTokenAmount } from "./token-amount.js";
import { accountsOnly, authority, extensionTypes, type TokenDecoder } from "./token-instruction-parts.js";

const ACCOUNT_STATES = ["uninitialized", "initialized", "frozen"] as const;

/** An extension's instructions by their second byte. */
function bySubTag(decoders: Readonly<Record<number, TokenDecoder>>): TokenDecoder {
  return (accounts, data) => {
    const decoder = decoders[data.u8()];
    if (decoder === undefined) throw new NotDecodable();
    return decoder(accounts, data);
  };
}

/** The keys that are set, under their names; a key that is none is left out. */
function keysThatAreSet(fields: Record<string, Address | null>): Record<string, Address> {
  return Object.fromEntries(Object.entries(fields).filter(([, key]) => key !== null)) as Record<
    string,
    Address
  >;
}

/**
 * A float as Rust's `to_string` writes it: the same shortest digits as JavaScript, but never in
 * exponent notation, `-0` for negative zero, and `inf`/`NaN` for the non-finite ones.
 */
export function rustFloatString(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (Object.is(value, -0)) return "-0";
  if (!Number.isFinite(value)) return value > 0 ? "inf" : "-inf";
  const text = String(value);
  const exponentAt = text.indexOf("e");
  if (exponentAt === -1) return text;
  const sign = text.startsWith("-") ? "-" : "";
  const mantissa = text.slice(sign.length, exponentAt);
  const exponent = Number(text.slice(exponentAt + 1));
  const [whole = "", fraction = ""] = mantissa.split(".");
  const digits = whole + fraction;
  const point = whole.length + exponent;
  if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${"0".repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/**
 * The transfer hook (its program id) and the pointer extensions (metadata, group, group member):
 * initialize with an optional authority and address, update the address signed by the authority.
 */
function addressWithAuthority(name: string, addressName: string): TokenDecoder {
  return bySubTag({
    0: (accounts, data) => {
      const at = accountsOf(accounts, 1);
      const fields = { authority: data.nonZeroKey(), [addressName]: data.nonZeroKey() };
      data.end();
      return { type: `initialize${name}`, info: { mint: at(0), ...keysThatAreSet(fields) } };
    },
    1: (accounts, data) => {
      const at = accountsOf(accounts, 2);
      const fields = { [addressName]: data.nonZeroKey() };
      data.end();
      return {
        type: `update${name}`,
        info: {
          mint: at(0),
          ...keysThatAreSet(fields),
          ...authority(accounts, 1, "authority", "multisigAuthority"),
        },
      };
    },
  });
}

/** Enable and disable of a token account's setting (required memos, the CPI guard), signed by its owner. */
function accountToggle(name: string): TokenDecoder {
  const toggle =
    (verb: string): TokenDecoder =>
    (accounts) => {
      const at = accountsOf(accounts, 2);
      return {
        type: `${verb}${name}`,
        info: { account: at(0), ...authority(accounts, 1, "owner", "multisigOwner") },
      };
    };
  return bySubTag({ 0: toggle("enable"), 1: toggle("disable") });
}

const transferFee = bySubTag({
  0: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    const authorities = {
      transferFeeConfigAuthority: data.optionalKey(),
      withdrawWithheldAuthority: data.optionalKey(),
    };
    const transferFeeBasisPoints = data.u16();
    const maximumFee = data.u64();
    return {
      type: "initializeTransferFeeConfig",
      info: { mint: at(0), transferFeeBasisPoints, maximumFee, ...keysThatAreSet(authorities) },
    };
  },
  1: (accounts, data) => {
    const at = accountsOf(accounts, 4);
    const amount = data.u64();
    const decimals = data.u8();
    const fee = data.u64();
    return {
      type: "transferCheckedWithFee",
      info: {
        source: at(0),
        mint: at(1),
        destination: at(2),
        tokenAmount: uiTokenAmount(amount, { decimals }),
        feeAmount: uiTokenAmount(fee, { decimals }),
        ...authority(accounts, 3, "authority", "multisigAuthority"),
      },
    };
  },
  2: accountsOnly(
    "withdrawWithheldTokensFromMint",
    ["mint", "feeRecipient"],
    ["withdrawWithheldAuthority", "multisigWithdrawWithheldAuthority"],
  ),
  3: (accounts, data) => {
    const sources = data.u8();
    const at = accountsOf(accounts, 3 + sources);
    const firstSource = accounts.length - sources;
    return {
      type: "withdrawWithheldTokensFromAccounts",
      info: {
        mint: at(0),
        feeRecipient: at(1),
        sourceAccounts: accounts.slice(firstSource),
        ...authority(
          accounts.slice(0, firstSource),
          2,
          "withdrawWithheldAuthority",
          "multisigWithdrawWithheldAuthority",
        ),
      },
    };
  },
  4: (accounts) => {
    const at = accountsOf(accounts, 1);
    return { type: "harvestWithheldTokensToMint", info: { mint: at(0), sourceAccounts: accounts.slice(1) } };
  },
  5: (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const transferFeeBasisPoints = data.u16();
    const maximumFee = data.u64();
    return {
      type: "setTransferFee",
      info: {
        mint: at(0),
        transferFeeBasisPoints,
        maximumFee,
        // The validator's own spelling of the multisig field.
        ...authority(accounts, 1, "transferFeeConfigAuthority", "multisigtransferFeeConfigAuthority"),
      },
    };
  },
});

const defaultAccountState: TokenDecoder = (accounts, data) => {
  const instruction = data.u8();
  const accountState = ACCOUNT_STATES[data.u8()];
  data.end();
  if (accountState === undefined) throw new NotDecodable();
  if (instruction === 0) {
    const at = accountsOf(accounts, 1);
    return { type: "initializeDefaultAccountState", info: { mint: at(0), accountState } };
  }
  if (instruction !== 1) throw new NotDecodable();
  const at = accountsOf(accounts, 2);
  return {
    type: "updateDefaultAccountState",
    info: {
      mint: at(0),
      accountState,
      ...authority(accounts, 1, "freezeAuthority", "multisigFreezeAuthority"),
    },
  };
};

const reallocate: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 4);
  return {
    type: "reallocate",
    info: {
      account: at(0),
      payer: at(1),
      systemProgram: at(2),
      extensionTypes: extensionTypes(data),
      ...authority(accounts, 3, "owner", "multisigOwner"),
    },
  };
};

const interestBearingMint = bySubTag({
  0: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    const rateAuthority = data.nonZeroKey();
    const rate = data.i16();
    data.end();
    return { type: "initializeInterestBearingConfig", info: { mint: at(0), rateAuthority, rate } };
  },
  1: (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const newRate = data.i16();
    data.end();
    return {
      type: "updateInterestBearingConfigRate",
      info: { mint: at(0), newRate, ...authority(accounts, 1, "rateAuthority", "multisigRateAuthority") },
    };
  },
});

const scaledUiAmount = bySubTag({
  0: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    const authorityKey = data.nonZeroKey();
    const multiplier = data.f64();
    data.end();
    return {
      type: "initializeScaledUiAmountConfig",
      info: { mint: at(0), authority: authorityKey, multiplier: rustFloatString(multiplier) },
    };
  },
  1: (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const multiplier = data.f64();
    const timestamp = data.i64();
    data.end();
    return {
      type: "updateMultiplier",
      info: {
        mint: at(0),
        newMultiplier: rustFloatString(multiplier),
        newMultiplierTimestamp: timestamp,
        ...authority(accounts, 1, "authority", "multisigAuthority"),
      },
    };
  },
});

const pausedOrResumed =
  (type: string): TokenDecoder =>
  (accounts) => {
    const at = accountsOf(accounts, 2);
    return { type, info: { mint: at(0), ...authority(accounts, 1, "authority", "multisigAuthority") } };
  };

const pausable = bySubTag({
  0: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    // A plain key, not an optional one: all zeros is shown as the System program's address.
    const authorityKey = data.key();
    data.end();
    return { type: "initializePausableConfig", info: { mint: at(0), authority: authorityKey } };
  },
  1: pausedOrResumed("pause"),
  2: pausedOrResumed("resume"),
});

/** Token-2022's extension instructions by their first byte. */
export const TOKEN_EXTENSION_DECODERS: Readonly<Record<number, TokenDecoder>> = {
  25: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    return { type: "initializeMintCloseAuthority", info: { mint: at(0), newAuthority: data.optionalKey() } };
  },
  26: transferFee,
  28: defaultAccountState,
  29: reallocate,
  30: accountToggle("RequiredMemoTransfers"),
  31: accountsOnly("createNativeMint", ["payer", "nativeMint", "systemProgram"]),
  32: accountsOnly("initializeNonTransferableMint", ["mint"]),
  33: interestBearingMint,
  34: accountToggle("CpiGuard"),
  35: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    return { type: "initializePermanentDelegate", info: { mint: at(0), delegate: data.key() } };
  },
  36: addressWithAuthority("TransferHook", "programId"),
  38: accountsOnly("withdrawExcessLamports", ["source", "destination"], ["authority", "multisigAuthority"]),
  39: addressWithAuthority("MetadataPointer", "metadataAddress"),
  40: addressWithAuthority("GroupPointer", "groupAddress"),
  41: addressWithAuthority("GroupMemberPointer", "memberAddress"),
  43: scaledUiAmount,
  44: pausable,
};
