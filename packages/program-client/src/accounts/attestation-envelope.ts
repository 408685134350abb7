import type { Address } from "@solana/kit";

import { AccountDiscriminator, HASH_SIZE } from "../constants.js";
import type { AccountDataReader } from "./account-data-reader.js";

/** The SAS Attestation fields around the schema data, shared by single and batch attestations. */
export type AttestationEnvelope = Readonly<{
  /** The stored hash (single attestation) or the Merkle root (batch). */
  nonce: Uint8Array;
  credential: Address;
  schema: Address;
  /** The agent's public key. */
  signer: Address;
  /** 0: never expires. */
  expiry: bigint;
  /** All zero: not tokenized. */
  tokenAccount: Address;
}>;

type EnvelopeHeader = Readonly<{
  header: Pick<AttestationEnvelope, "nonce" | "credential" | "schema">;
  dataLength: number;
}>;

/**
 * discriminator ‖ nonce ‖ credential ‖ schema ‖ u32 data length. An `expectedSize` is checked right
 * after the discriminator, so a wrong size is reported as such rather than as a truncated field.
 */
export function readEnvelopeHeader(reader: AccountDataReader, expectedSize?: number): EnvelopeHeader {
  reader.expectDiscriminator(AccountDiscriminator.Attestation);
  if (expectedSize !== undefined) reader.expectSize(expectedSize);
  const header = {
    nonce: reader.bytes("nonce", HASH_SIZE),
    credential: reader.address("credential"),
    schema: reader.address("schema"),
  };
  return { header, dataLength: reader.u32("data") };
}

/** After the data: signer ‖ expiry ‖ token_account, and nothing more. */
export function readEnvelopeTrailer(
  reader: AccountDataReader,
): Pick<AttestationEnvelope, "signer" | "expiry" | "tokenAccount"> {
  const trailer = {
    signer: reader.address("signer"),
    expiry: reader.i64("expiry"),
    tokenAccount: reader.address("token_account"),
  };
  reader.expectEnd();
  return trailer;
}

/** The declared data length must be exactly what the schema's fields took. */
export function expectDataConsumed(reader: AccountDataReader, dataStart: number, dataLength: number): void {
  const consumed = reader.offset - dataStart;
  if (consumed !== dataLength) {
    throw reader.malformed("data", `the length says ${dataLength} bytes but the fields take ${consumed}`);
  }
}
