import type { ReadonlyUint8Array } from "@solana/kit";

import type { Attestation } from "../generated/index.js";
import { decodeGeneratedAccount, type GeneratedAccountLayout, type OwnedBytes } from "./generated-account.js";

/**
 * The SAS Attestation fields around the schema data, shared by single and batch attestations:
 * `nonce` (the stored hash, or a batch's Merkle root), `credential`, `schema`, `signer` (the
 * agent's key), `expiry` (0: never) and `tokenAccount` (all zero: not tokenized).
 */
export type AttestationEnvelope = OwnedBytes<Omit<Attestation, "discriminator" | "data">>;

type DecodedAttestation<TData> = Omit<Attestation, "data"> & { data: TData };

/** Decodes a single or batch attestation, split into its envelope and its schema data. */
export function decodeEnvelopeAndData<TData>(
  layout: GeneratedAccountLayout<DecodedAttestation<TData>>,
  bytes: ReadonlyUint8Array,
): readonly [AttestationEnvelope, OwnedBytes<TData>] {
  const { discriminator: _discriminator, data, ...envelope } = decodeGeneratedAccount(layout, bytes);
  // The decoded byte fields are fresh copies (see decodeGeneratedAccount), so they are the caller's.
  return [envelope as AttestationEnvelope, data as OwnedBytes<TData>];
}
