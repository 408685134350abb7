import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";

import { ABAS_SDK__INVALID_BYTE_LENGTH } from "@abas/errors";
import type { Address } from "@solana/kit";

import {
  deriveAgentAddress,
  deriveAttestationAddress,
  deriveBatchAddress,
  deriveCredentialAddress,
  deriveIssuerAddresses,
  deriveSchemaAddress,
  type DerivedAddress,
} from "../addresses.js";
import { assertRejectsAbasError } from "./assert-abas-error.js";
import { ascii } from "./byte-builder.js";
import { addressBytes, AGENT, MERKLE_ROOT, PROGRAM_ID, STORED_HASH } from "./fixtures.js";

/**
 * Solana's create_program_address, recomputed independently: SHA-256 of the seeds, the bump, the
 * program id and "ProgramDerivedAddress". (That the result is off the curve is kit's business.)
 */
function expectedPdaBytes(programId: Address, seeds: Uint8Array[], bump: number): Uint8Array {
  const hash = createHash("sha256");
  for (const seed of seeds) hash.update(seed);
  hash.update(Uint8Array.of(bump)).update(addressBytes(programId)).update(ascii("ProgramDerivedAddress"));
  return new Uint8Array(hash.digest());
}

function assertDerivedFrom(derived: DerivedAddress, seeds: Uint8Array[]): void {
  assert.ok(Number.isInteger(derived.bump) && derived.bump >= 0 && derived.bump <= 255);
  assert.deepEqual(addressBytes(derived.address), expectedPdaBytes(PROGRAM_ID, seeds, derived.bump));
}

describe("program derived addresses", () => {
  it('derives the Credential from ["credential"]', async () => {
    assertDerivedFrom(await deriveCredentialAddress(PROGRAM_ID), [ascii("credential")]);
  });

  it('derives each Schema from ["schema", credential, name, [version]]: BehaviorAttestation v1, BehaviorBatch v2', async () => {
    // Given the Credential
    const credential = await deriveCredentialAddress(PROGRAM_ID);
    // When both Schemas are derived
    const attestationSchema = await deriveSchemaAddress(PROGRAM_ID, credential.address, "attestation");
    const batchSchema = await deriveSchemaAddress(PROGRAM_ID, credential.address, "batch");
    // Then each comes from its name and version
    const credentialBytes = addressBytes(credential.address);
    assertDerivedFrom(attestationSchema, [
      ascii("schema"),
      credentialBytes,
      ascii("BehaviorAttestation"),
      Uint8Array.of(1),
    ]);
    assertDerivedFrom(batchSchema, [
      ascii("schema"),
      credentialBytes,
      ascii("BehaviorBatch"),
      Uint8Array.of(2),
    ]);
  });

  it('derives the agent account from ["agent", agent]', async () => {
    assertDerivedFrom(await deriveAgentAddress(PROGRAM_ID, AGENT), [ascii("agent"), addressBytes(AGENT)]);
  });

  it('derives an attestation from ["attestation", agent, stored_hash]', async () => {
    assertDerivedFrom(await deriveAttestationAddress(PROGRAM_ID, AGENT, STORED_HASH), [
      ascii("attestation"),
      addressBytes(AGENT),
      STORED_HASH,
    ]);
  });

  it('derives a batch from ["batch", agent, merkle_root]', async () => {
    assertDerivedFrom(await deriveBatchAddress(PROGRAM_ID, AGENT, MERKLE_ROOT), [
      ascii("batch"),
      addressBytes(AGENT),
      MERKLE_ROOT,
    ]);
  });

  it("gives the Credential and both Schemas together", async () => {
    const issuer = await deriveIssuerAddresses(PROGRAM_ID);
    const credential = await deriveCredentialAddress(PROGRAM_ID);
    assert.deepEqual(issuer.credential, credential);
    assert.deepEqual(issuer.batchSchema, await deriveSchemaAddress(PROGRAM_ID, credential.address, "batch"));
    assert.notEqual(issuer.attestationSchema.address, issuer.batchSchema.address);
  });

  it("depends on the program id, so each deployment has its own accounts", async () => {
    const here = await deriveAgentAddress(PROGRAM_ID, AGENT);
    const elsewhere = await deriveAgentAddress(AGENT, AGENT);
    assert.notEqual(here.address, elsewhere.address);
  });

  it("rejects a stored hash or a root that is not 32 bytes", async () => {
    await assertRejectsAbasError(
      () => deriveAttestationAddress(PROGRAM_ID, AGENT, STORED_HASH.slice(0, 20)),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
    await assertRejectsAbasError(
      () => deriveBatchAddress(PROGRAM_ID, AGENT, new Uint8Array(0)),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});
