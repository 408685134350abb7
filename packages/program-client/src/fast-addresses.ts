/**
 * Addresses checked and converted with the package's own base58 instead of kit's BigInt one: the
 * generated client imports its address codecs from here (`npm run idl` maps them), and decoding
 * accounts and instructions spends most of its time on addresses otherwise. Anything the fast path
 * does not accept goes to kit's own function, so the results and the errors are kit's.
 */
import {
  address,
  combineCodec,
  createDecoder,
  createEncoder,
  getAddressDecoder as getKitAddressDecoder,
  getAddressEncoder as getKitAddressEncoder,
  type Address,
  type FixedSizeCodec,
  type FixedSizeDecoder,
  type FixedSizeEncoder,
  type ReadonlyUint8Array,
} from "@solana/kit";

import { decodeBase58, encodeBase58 } from "./base58.js";

const ADDRESS_SIZE = 32;
const kitEncoder = getKitAddressEncoder();
const kitDecoder = getKitAddressDecoder();

/** The 32 bytes of an address, when `text` is one; undefined sends the caller to kit. */
function fastAddressBytes(text: string): Uint8Array | undefined {
  if (text.length < 32 || text.length > 44) return undefined;
  const bytes = decodeBase58(text);
  return bytes?.length === ADDRESS_SIZE ? bytes : undefined;
}

/** kit's `address()`, faster when the text is an address. */
export function toAddress(text: string): Address {
  return fastAddressBytes(text) === undefined ? address(text) : (text as Address);
}

const encoder: FixedSizeEncoder<Address, 32> = createEncoder({
  fixedSize: ADDRESS_SIZE,
  write: (value: Address, bytes, offset) => {
    bytes.set(fastAddressBytes(value) ?? kitEncoder.encode(value), offset);
    return offset + ADDRESS_SIZE;
  },
});

const decoder: FixedSizeDecoder<Address, 32> = createDecoder({
  fixedSize: ADDRESS_SIZE,
  read: (bytes: ReadonlyUint8Array, offset) =>
    bytes.length - offset < ADDRESS_SIZE
      ? kitDecoder.read(bytes, offset)
      : [encodeBase58(bytes.subarray(offset, offset + ADDRESS_SIZE)) as Address, offset + ADDRESS_SIZE],
});

const codec: FixedSizeCodec<Address, Address, 32> = combineCodec(encoder, decoder);

export const getAddressEncoder = (): FixedSizeEncoder<Address, 32> => encoder;
export const getAddressDecoder = (): FixedSizeDecoder<Address, 32> => decoder;
export const getAddressCodec = (): FixedSizeCodec<Address, Address, 32> => codec;
