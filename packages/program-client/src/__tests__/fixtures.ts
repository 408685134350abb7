import { getAddressDecoder, getAddressEncoder, type Address } from "@solana/kit";

import { bytesOf } from "./byte-builder.js";

/** A recognisable address whose 32 bytes are all `fill`. */
export const addressOf = (fill: number): Address => getAddressDecoder().decode(bytesOf(32, fill));
export const addressBytes = (value: Address): Uint8Array =>
  Uint8Array.from(getAddressEncoder().encode(value));

export const PROGRAM_ID = addressOf(0xa1);
export const AGENT = addressOf(0xa2);
export const OPERATOR = addressOf(0xa3);
export const STORED_HASH = Uint8Array.from({ length: 32 }, (_, i) => i);
export const MERKLE_ROOT = Uint8Array.from({ length: 32 }, (_, i) => 0xff - i);
export const SIGNATURE = Uint8Array.from({ length: 64 }, (_, i) => (i * 3) & 0xff);
