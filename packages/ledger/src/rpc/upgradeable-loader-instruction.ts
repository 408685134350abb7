/**
 * `jsonParsed` decoding of the BPF Upgradeable Loader's instructions (program
 * "bpf-upgradeable-loader"), in a validator's shapes: bincode, a u32 tag then the fields, written
 * bytes shown in base64, an optional trailing account shown as null when it is not there. Migrate
 * (tag 8), which a validator's parser does not decode, is left partially decoded here too, as is
 * an instruction without accounts.
 */
import type { Address } from "@solana/kit";

import { toBase64 } from "../encoding.js";
import {
  accountsOf,
  decodeBincodeInstruction,
  type DataReader,
  type DecodedInstruction,
  type InstructionDecoder,
} from "./instruction-data.js";

/** Named accounts by position, then named optional ones, null where the instruction has none. */
function named(
  accounts: readonly Address[],
  names: readonly string[],
  optionalNames: readonly string[] = [],
): Record<string, Address | null> {
  const at = accountsOf(accounts, names.length);
  return {
    ...Object.fromEntries(names.map((name, position) => [name, at(position)])),
    ...Object.fromEntries(optionalNames.map((name, index) => [name, accounts[names.length + index] ?? null])),
  };
}

/** A bincode Vec<u8>: its u64 length, then the bytes. */
function byteVector(data: DataReader): Uint8Array {
  return data.bytes(data.u64());
}

/** By the instruction's tag (UpgradeableLoaderInstruction's variant index). */
const DECODERS: readonly (InstructionDecoder | undefined)[] = [
  (accounts) => {
    const at = accountsOf(accounts, 1);
    return {
      type: "initializeBuffer",
      info: { account: at(0), ...(accounts.length > 1 ? { authority: at(1) } : {}) },
    };
  },
  (accounts, data) => {
    const offset = data.u32();
    const bytes = toBase64(byteVector(data));
    return { type: "write", info: { offset, bytes, ...named(accounts, ["account", "authority"]) } };
  },
  (accounts, data) => ({
    type: "deployWithMaxDataLen",
    info: {
      maxDataLen: data.u64(),
      ...named(accounts, [
        "payerAccount",
        "programDataAccount",
        "programAccount",
        "bufferAccount",
        "rentSysvar",
        "clockSysvar",
        "systemProgram",
        "authority",
      ]),
    },
  }),
  (accounts) => ({
    type: "upgrade",
    info: named(accounts, [
      "programDataAccount",
      "programAccount",
      "bufferAccount",
      "spillAccount",
      "rentSysvar",
      "clockSysvar",
      "authority",
    ]),
  }),
  (accounts) => ({ type: "setAuthority", info: named(accounts, ["account", "authority"], ["newAuthority"]) }),
  (accounts) => ({
    type: "close",
    info: named(accounts, ["account", "recipient", "authority"], ["programAccount"]),
  }),
  (accounts, data) => ({
    type: "extendProgram",
    info: {
      additionalBytes: data.u32(),
      ...named(accounts, ["programDataAccount", "programAccount"], ["systemProgram", "payerAccount"]),
    },
  }),
  (accounts) => ({
    type: "setAuthorityChecked",
    info: named(accounts, ["account", "authority", "newAuthority"]),
  }),
  undefined,
  (accounts, data) => ({
    type: "extendProgramChecked",
    info: {
      additionalBytes: data.u32(),
      ...named(
        accounts,
        ["programDataAccount", "programAccount", "authority"],
        ["systemProgram", "payerAccount"],
      ),
    },
  }),
];

export function decodeUpgradeableLoaderInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  if (accounts.length === 0) return undefined;
  return decodeBincodeInstruction(DECODERS, accounts, data);
}
