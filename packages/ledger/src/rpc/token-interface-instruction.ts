/**
 * `jsonParsed` decoding of the token metadata and token group interface instructions that
 * Token-2022 implements for its TokenMetadata, TokenGroup and TokenGroupMember extensions, in the
 * shapes a validator's parser gives them. Each begins with an 8-byte discriminator; the metadata instructions' fields are Borsh, the
 * group instructions' fixed-size (an optional key is 32 bytes, all zero for none). A validator
 * decodes them only when the data holds exactly their fields.
 */
import { hash } from "node:crypto";

import type { Address } from "@solana/kit";

import {
  accountsOf,
  DataReader,
  decodeOrUndefined,
  NotDecodable,
  type DecodedInstruction,
} from "./instruction-data.js";
import type { TokenDecoder } from "./token-instruction-parts.js";

/** The metadata's fixed fields by their Borsh variant; variant 3 is a key of the caller's. */
const FIXED_FIELDS = ["name", "symbol", "uri"] as const;

const initializeMetadata: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 4);
  const name = data.borshString();
  const symbol = data.borshString();
  const uri = data.borshString();
  return {
    type: "initializeTokenMetadata",
    info: { metadata: at(0), updateAuthority: at(1), mint: at(2), mintAuthority: at(3), name, symbol, uri },
  };
};

const updateMetadataField: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 2);
  const variant = data.u8();
  const field = variant === 3 ? data.borshString() : FIXED_FIELDS[variant];
  if (field === undefined) throw new NotDecodable();
  return {
    type: "updateTokenMetadataField",
    info: { metadata: at(0), updateAuthority: at(1), field, value: data.borshString() },
  };
};

const removeMetadataKey: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 2);
  const idempotent = data.bool();
  return {
    type: "removeTokenMetadataKey",
    info: { metadata: at(0), updateAuthority: at(1), key: data.borshString(), idempotent },
  };
};

const updateMetadataAuthority: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 2);
  return {
    type: "updateTokenMetadataAuthority",
    info: { metadata: at(0), updateAuthority: at(1), newAuthority: data.nonZeroKey() },
  };
};

const emitMetadata: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 1);
  const start = data.option(() => data.u64());
  const end = data.option(() => data.u64());
  return {
    type: "emitTokenMetadata",
    info: { metadata: at(0), ...(start === null ? {} : { start }), ...(end === null ? {} : { end }) },
  };
};

const initializeGroup: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 3);
  const updateAuthority = data.nonZeroKey();
  const maxSize = data.u64();
  return {
    type: "initializeTokenGroup",
    info: { group: at(0), maxSize, mint: at(1), mintAuthority: at(2), updateAuthority },
  };
};

const updateGroupMaxSize: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 2);
  return {
    type: "updateTokenGroupMaxSize",
    info: { group: at(0), maxSize: data.u64(), updateAuthority: at(1) },
  };
};

const updateGroupAuthority: TokenDecoder = (accounts, data) => {
  const at = accountsOf(accounts, 2);
  return {
    type: "updateTokenGroupAuthority",
    info: { group: at(0), updateAuthority: at(1), newAuthority: data.nonZeroKey() },
  };
};

const initializeGroupMember: TokenDecoder = (accounts) => {
  const at = accountsOf(accounts, 5);
  return {
    type: "initializeTokenGroupMember",
    info: {
      member: at(0),
      memberMint: at(1),
      memberMintAuthority: at(2),
      group: at(3),
      groupUpdateAuthority: at(4),
    },
  };
};

const DISCRIMINATOR_LENGTH = 8;

/** An interface instruction's discriminator, in hex: the first 8 bytes of the SHA-256 of its name. */
const discriminator = (name: string): string =>
  hash("sha256", name, "hex").slice(0, 2 * DISCRIMINATOR_LENGTH);

const DECODERS: ReadonlyMap<string, TokenDecoder> = new Map([
  [discriminator("spl_token_group_interface:initialize_token_group"), initializeGroup],
  [discriminator("spl_token_group_interface:update_group_max_size"), updateGroupMaxSize],
  [discriminator("spl_token_group_interface:update_authority"), updateGroupAuthority],
  [discriminator("spl_token_group_interface:initialize_member"), initializeGroupMember],
  [discriminator("spl_token_metadata_interface:initialize_account"), initializeMetadata],
  [discriminator("spl_token_metadata_interface:updating_field"), updateMetadataField],
  [discriminator("spl_token_metadata_interface:remove_key_ix"), removeMetadataKey],
  [discriminator("spl_token_metadata_interface:update_the_authority"), updateMetadataAuthority],
  [discriminator("spl_token_metadata_interface:emitter"), emitMetadata],
]);

/** The instruction's type and info, or undefined when it is none of these interfaces' instructions. */
export function decodeTokenInterfaceInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  if (data.length < DISCRIMINATOR_LENGTH) return undefined;
  const decoder = DECODERS.get(Buffer.from(data.subarray(0, DISCRIMINATOR_LENGTH)).toString("hex"));
  if (decoder === undefined) return undefined;
  return decodeOrUndefined(() => {
    const reader = new DataReader(data, DISCRIMINATOR_LENGTH);
    const decoded = decoder(accounts, reader);
    reader.end();
    return decoded;
  });
}
