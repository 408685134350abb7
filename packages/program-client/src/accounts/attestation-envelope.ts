import type { Attestation } from "../generated/index.js";
import type { OwnedBytes } from "./generated-account.js";

/**
 * The SAS Attestation fields around the schema data, shared by single and batch attestations:
 * `nonce` (the stored hash, or a batch's Merkle root), `credential`, `schema`, `signer` (the
 * agent's key), `expiry` (0: never) and `tokenAccount` (all zero: not tokenized).
 */
export type AttestationEnvelope = OwnedBytes<Omit<Attestation, "discriminator" | "data">>;

type DecodedAttestation<TData> = Omit<Attestation, "data"> & { data: TData };

/** Splits a decoded single or batch attestation into its envelope and its schema data. */
export function splitEnvelope<TData>({
  discriminator: _discriminator,
  data,
  ...envelope
}: DecodedAttestation<TData>): readonly [AttestationEnvelope, OwnedBytes<TData>] {
  // The decoded byte fields are fresh copies (see decodeGeneratedAccount), so they are the caller's.
  return [envelope as AttestationEnvelope, data as OwnedBytes<TData>];
}
