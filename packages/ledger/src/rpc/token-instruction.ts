/**
 * `jsonParsed` decoding of SPL Token and Token-2022 instructions (program "spl-token" for both,
 * as on a validator): the instructions of the base token interface, tags 0 to 24, Token-2022's
 * extension instructions (token-extension-instruction.ts) and the token metadata and token group
 * interface instructions (token-interface-instruction.ts). Instructions not decoded there, and data
 * or account lists too short for their instruction, are not decoded: the caller shows them
 * partially decoded, as a validator shows instructions its parser refuses.
 */
import type { Address } from "@solana/kit";

import {
  accountsOf,
  DataReader,
  decodeOrUndefined,
  NotDecodable,
  type DecodedInstruction,
} from "./instruction-data.js";
import { uiTokenAmount } from "./token-amount.js";
import { TOKEN_EXTENSION_DECODERS } from "./token-extension-instruction.js";
import { decodeTokenInterfaceInstruction } from "./token-interface-instruction.js";
import { accountsOnly, authority, extensionTypes, type TokenDecoder } from "./token-instruction-parts.js";

/** AuthorityType of SetAuthority, by its byte. */
const AUTHORITY_TYPES = [
  "mintTokens",
  "freezeAccount",
  "accountOwner",
  "closeAccount",
  "transferFeeConfig",
  "withheldWithdraw",
  "closeMint",
  "interestRate",
  "permanentDelegate",
  "confidentialTransferMint",
  "transferHookProgramId",
  "confidentialTransferFeeConfig",
  "metadataPointer",
  "groupPointer",
  "groupMemberPointer",
  "scaledUiAmount",
  "pause",
  "permissionedBurn",
] as const;
/** The authority types that belong to a token account; the others belong to a mint. */
const ACCOUNT_AUTHORITY_TYPES = new Set<string>(["accountOwner", "closeAccount"]);

const initializeMint =
  (type: string, withRentSysvar: boolean): TokenDecoder =>
  (accounts, data) => {
    const at = accountsOf(accounts, withRentSysvar ? 2 : 1);
    const decimals = data.u8();
    const mintAuthority = data.key();
    const freezeAuthority = data.optionalKey();
    return {
      type,
      info: {
        mint: at(0),
        decimals,
        mintAuthority,
        ...(withRentSysvar ? { rentSysvar: at(1) } : {}),
        ...(freezeAuthority === null ? {} : { freezeAuthority }),
      },
    };
  };

const initializeMultisig =
  (type: string, withRentSysvar: boolean): TokenDecoder =>
  (accounts, data) => {
    const firstSigner = withRentSysvar ? 2 : 1;
    const at = accountsOf(accounts, firstSigner + 1);
    return {
      type,
      info: {
        multisig: at(0),
        ...(withRentSysvar ? { rentSysvar: at(1) } : {}),
        signers: accounts.slice(firstSigner),
        m: data.u8(),
      },
    };
  };

/** Amount instructions: `{ first, second, amount }` signed by an authority at position 2. */
const withAmount =
  (type: string, first: string, second: string, ownerName: string, multisigName: string): TokenDecoder =>
  (accounts, data) => {
    const at = accountsOf(accounts, 3);
    return {
      type,
      info: {
        [first]: at(0),
        [second]: at(1),
        amount: data.u64().toString(),
        ...authority(accounts, 2, ownerName, multisigName),
      },
    };
  };

/** Checked instructions: an amount with the mint's decimals, shown as a token amount. */
const checked =
  (type: string, names: readonly string[], ownerName: string, multisigName: string): TokenDecoder =>
  (accounts, data) => {
    const at = accountsOf(accounts, names.length + 1);
    const amount = data.u64();
    const decimals = data.u8();
    return {
      type,
      info: {
        ...Object.fromEntries(names.map((name, position) => [name, at(position)])),
        tokenAmount: uiTokenAmount(amount, { decimals }),
        ...authority(accounts, names.length, ownerName, multisigName),
      },
    };
  };

const initializeAccountWithOwner =
  (type: string, withRentSysvar: boolean): TokenDecoder =>
  (accounts, data) => {
    const at = accountsOf(accounts, withRentSysvar ? 3 : 2);
    return {
      type,
      info: {
        account: at(0),
        mint: at(1),
        owner: data.key(),
        ...(withRentSysvar ? { rentSysvar: at(2) } : {}),
      },
    };
  };

const setAuthority: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 2);
  const authorityType = AUTHORITY_TYPES[data.u8()];
  if (authorityType === undefined) throw new NotDecodable();
  const newAuthority = data.optionalKey();
  return {
    type: "setAuthority",
    info: {
      [ACCOUNT_AUTHORITY_TYPES.has(authorityType) ? "account" : "mint"]: at(0),
      authorityType,
      newAuthority,
      ...authority(accounts, 1, "authority", "multisigAuthority"),
    },
  };
};

/** Decoders by the instruction's first byte. */
const DECODERS: Readonly<Record<number, TokenDecoder>> = {
  0: initializeMint("initializeMint", true),
  1: accountsOnly("initializeAccount", ["account", "mint", "owner", "rentSysvar"]),
  2: initializeMultisig("initializeMultisig", true),
  3: withAmount("transfer", "source", "destination", "authority", "multisigAuthority"),
  4: withAmount("approve", "source", "delegate", "owner", "multisigOwner"),
  5: accountsOnly("revoke", ["source"], ["owner", "multisigOwner"]),
  6: setAuthority,
  7: withAmount("mintTo", "mint", "account", "mintAuthority", "multisigMintAuthority"),
  8: withAmount("burn", "account", "mint", "authority", "multisigAuthority"),
  9: accountsOnly("closeAccount", ["account", "destination"], ["owner", "multisigOwner"]),
  10: accountsOnly("freezeAccount", ["account", "mint"], ["freezeAuthority", "multisigFreezeAuthority"]),
  11: accountsOnly("thawAccount", ["account", "mint"], ["freezeAuthority", "multisigFreezeAuthority"]),
  12: checked("transferChecked", ["source", "mint", "destination"], "authority", "multisigAuthority"),
  13: checked("approveChecked", ["source", "mint", "delegate"], "owner", "multisigOwner"),
  14: checked("mintToChecked", ["mint", "account"], "mintAuthority", "multisigMintAuthority"),
  15: checked("burnChecked", ["account", "mint"], "authority", "multisigAuthority"),
  16: initializeAccountWithOwner("initializeAccount2", true),
  17: accountsOnly("syncNative", ["account"]),
  18: initializeAccountWithOwner("initializeAccount3", false),
  19: initializeMultisig("initializeMultisig2", false),
  20: initializeMint("initializeMint2", false),
  // GetAccountDataSize, with the extension types (u16 each) the new account will carry.
  21: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    const types = extensionTypes(data);
    return {
      type: "getAccountDataSize",
      info: { mint: at(0), ...(types.length === 0 ? {} : { extensionTypes: types }) },
    };
  },
  22: accountsOnly("initializeImmutableOwner", ["account"]),
  23: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    return { type: "amountToUiAmount", info: { mint: at(0), amount: data.u64().toString() } };
  },
  24: (accounts, data) => {
    const at = accountsOf(accounts, 1);
    return { type: "uiAmountToAmount", info: { mint: at(0), uiAmount: data.restText() } };
  },
  ...TOKEN_EXTENSION_DECODERS,
};

/** The instruction's type and info, or undefined when it is not decoded here. */
export function decodeTokenInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  const decoder = data.length === 0 ? undefined : DECODERS[data[0]!];
  // The interfaces' discriminators begin with bytes no token instruction has.
  if (decoder === undefined) return decodeTokenInterfaceInstruction(accounts, data);
  // The tag is one byte.
  return decodeOrUndefined(() => decoder(accounts, new DataReader(data, 1)));
}
