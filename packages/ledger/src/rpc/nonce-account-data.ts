/**
 * `jsonParsed` data of durable nonce accounts (owned by the System program), in a validator's
 * shape: `{ program: "nonce", parsed: { type: "initialized", info: { authority, blockhash,
 * feeCalculator: { lamportsPerSignature } } }, space }`. An uninitialized nonce, or System data
 * that is no nonce, has no parsed form, as on a validator.
 */
import { parsedOrUndefined } from "./bincode-reader.js";
import type { ParsedAccountData } from "./account-encoding.js";

const INITIALIZED = 1;

export function parseNonceAccountData(data: Uint8Array): ParsedAccountData | undefined {
  return parsedOrUndefined("nonce", data, (read) => {
    // Versions (Legacy or Current: the same state follows), then State.
    if (read.u32() > 1 || read.u32() !== INITIALIZED) throw new RangeError("not an initialized nonce");
    return {
      type: "initialized",
      info: {
        authority: read.hash(),
        blockhash: read.hash(),
        feeCalculator: { lamportsPerSignature: read.u64().toString() },
      },
    };
  });
}
