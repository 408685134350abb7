/**
 * Program addresses at a chosen bump, the way an attacker computes them: SHA-256 of the seeds, the
 * bump, the program id and "ProgramDerivedAddress", kept only when off the Ed25519 curve. The
 * canonical bump is the highest such bump; about half of the 256 bumps give some program address.
 */
import { sha256 } from "@abas/program-client";
import { getAddressDecoder, getAddressEncoder, isOffCurveAddress, type Address } from "@solana/kit";

export type Seed = string | Uint8Array;
export type BumpedAddress = Readonly<{ bump: number; address: Address }>;

const PDA_MARKER = new TextEncoder().encode("ProgramDerivedAddress");
const seedBytes = (seed: Seed) => (typeof seed === "string" ? new TextEncoder().encode(seed) : seed);

/** The program address of `seeds` at `bump`, or undefined when that hash lies on the curve. */
export function programAddressAt(
  programId: Address,
  seeds: readonly Seed[],
  bump: number,
): Address | undefined {
  const hash = sha256(
    ...seeds.map(seedBytes),
    Uint8Array.of(bump),
    getAddressEncoder().encode(programId),
    PDA_MARKER,
  );
  const candidate = getAddressDecoder().decode(hash);
  return isOffCurveAddress(candidate) ? candidate : undefined;
}

/** Every bump of `seeds` that gives a program address, highest (canonical) first. */
export function validBumps(programId: Address, seeds: readonly Seed[]): BumpedAddress[] {
  const found: BumpedAddress[] = [];
  for (let bump = 255; bump >= 0; bump--) {
    const address = programAddressAt(programId, seeds, bump);
    if (address !== undefined) found.push({ bump, address });
  }
  return found;
}

/** The first `count` program addresses of `seeds` below the canonical one. */
export function nonCanonicalAddresses(
  programId: Address,
  seeds: readonly Seed[],
  count: number,
): BumpedAddress[] {
  const found = validBumps(programId, seeds).slice(1, 1 + count);
  if (found.length < count) throw new Error(`only ${found.length} non-canonical bumps for these seeds`);
  return found;
}
