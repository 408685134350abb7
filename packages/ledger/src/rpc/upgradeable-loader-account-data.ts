/**
 * `jsonParsed` data of the BPF upgradeable loader's accounts, in a validator's shape:
 * `{ program: "bpf-upgradeable-loader", parsed: { type, info }, space }`, where the type is
 * uninitialized, buffer (authority, data), program (programData) or programData (slot, authority,
 * data), the data after the state as `[base64, "base64"]`.
 */
import type { Address } from "@solana/kit";

import { toBase64 } from "../encoding.js";
import { parsedOrUndefined } from "./bincode-reader.js";
import type { ParsedAccountData } from "./account-encoding.js";

export const UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111" as Address;

/** How far a buffer's or program data's state reaches with an authority: the code follows. */
const BUFFER_METADATA = 4 + 1 + 32;
const PROGRAM_DATA_METADATA = 4 + 8 + 1 + 32;
/** A missing authority is one byte, not 33: where a validator's decoder then starts the data. */
const KEY = 32;

export function parseUpgradeableLoaderAccountData(data: Uint8Array): ParsedAccountData | undefined {
  return parsedOrUndefined("bpf-upgradeable-loader", data, (read) => {
    const code = (metadata: number, authority: string | null): [string, "base64"] => [
      toBase64(data.subarray(authority === null ? metadata - KEY : metadata)),
      "base64",
    ];
    switch (read.u32()) {
      case 0:
        return { type: "uninitialized" };
      case 1: {
        const authority = read.optionalKey();
        return { type: "buffer", info: { authority, data: code(BUFFER_METADATA, authority) } };
      }
      case 2:
        return { type: "program", info: { programData: read.hash() } };
      case 3: {
        const slot = read.u64();
        const authority = read.optionalKey();
        return {
          type: "programData",
          info: { slot, authority, data: code(PROGRAM_DATA_METADATA, authority) },
        };
      }
      default:
        throw new RangeError("not an upgradeable loader state");
    }
  });
}
