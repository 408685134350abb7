/**
 * What the `jsonParsed` decoders of SPL Token's base instructions and of Token-2022's extension
 * instructions share: the decoder's signature, the authority that a single owner or a multisig
 * signs for, instructions that are only accounts, and lists of extension types.
 */
import type { Address } from "@solana/kit";

import { EXTENSION_TYPE_NAMES } from "../token/token-state.js";
import { accountsOf, NotDecodable, type DataReader, type DecodedInstruction } from "./instruction-data.js";

export type TokenDecoder = (accounts: readonly Address[], data: DataReader) => DecodedInstruction;

/**
 * The authority of an instruction that a single owner or a multisig may sign: the account at
 * `position` under `ownerName`, or, when signers follow it, as `multisigName` with `signers`.
 */
export function authority(
  accounts: readonly Address[],
  position: number,
  ownerName: string,
  multisigName: string,
): Record<string, unknown> {
  const owner = accounts[position];
  if (owner === undefined) return {};
  if (accounts.length > position + 1) return { [multisigName]: owner, signers: accounts.slice(position + 1) };
  return { [ownerName]: owner };
}

/** Instructions without data: named accounts, then an optional authority. */
export const accountsOnly =
  (type: string, names: readonly string[], signer?: readonly [string, string]): TokenDecoder =>
  (accounts) => {
    const at = accountsOf(accounts, names.length + (signer === undefined ? 0 : 1));
    return {
      type,
      info: {
        ...Object.fromEntries(names.map((name, position) => [name, at(position)])),
        ...(signer === undefined ? {} : authority(accounts, names.length, signer[0], signer[1])),
      },
    };
  };

/** The rest of the data as extension types (a u16 each), by their names. */
export function extensionTypes(data: DataReader): string[] {
  const names: string[] = [];
  while (data.remaining() > 0) {
    const name = EXTENSION_TYPE_NAMES[data.u16()];
    if (name === undefined) throw new NotDecodable();
    names.push(name);
  }
  return names;
}
