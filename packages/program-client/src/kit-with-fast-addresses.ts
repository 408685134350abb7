/** `@solana/kit` as the generated client imports it, with the address codecs of `fast-addresses.ts`. */
export * from "@solana/kit";
export { getAddressCodec, getAddressDecoder, getAddressEncoder } from "./fast-addresses.js";
