import assert from "node:assert/strict";
import { test } from "node:test";

import { ABAS_PROGRAM__ALREADY_INITIALIZED } from "@abas/errors";
import {
  buildInitializeInstruction,
  decodeCredentialAccount,
  decodeSchemaAccount,
  deriveCredentialAddress,
  deriveSchemaAddress,
} from "@abas/program-client";
import { getAddressEncoder, type Address, type ReadonlyUint8Array } from "@solana/kit";

import {
  balanceOf,
  createFundedSigner,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  readAccount,
  send,
} from "./harness.js";

// The expected bytes are written out from docs/program.md, independently of the client's encoders.
const utf8 = (text: string) => new TextEncoder().encode(text);
const u32 = (n: number) => Uint8Array.of(n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
const bytes = (...parts: (ReadonlyUint8Array | readonly number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => [...p]));
const addressBytes = (address: Address) => getAddressEncoder().encode(address);
const sized = (content: Uint8Array) => bytes(u32(content.length), content);

function expectedSchemaBytes(input: {
  credential: Address;
  name: string;
  description: string;
  layout: number[];
  fieldNames: string[];
}): Uint8Array {
  const names = bytes(...input.fieldNames.map((name) => sized(utf8(name))));
  return bytes(
    [1],
    addressBytes(input.credential),
    sized(utf8(input.name)),
    sized(utf8(input.description)),
    sized(Uint8Array.from(input.layout)),
    sized(names),
    [0], // is_paused
    [1], // version
  );
}

test("initialize creates the Credential and both Schemas with their exact bytes", async () => {
  // Given a fresh deployment where nobody has run initialize, and a payer that is nobody special
  const ledger = await createTestLedger({ initialize: false });
  const payer = await createFundedSigner(ledger);
  const credential = await deriveCredentialAddress(ledger.programId);
  const attestationSchema = await deriveSchemaAddress(ledger.programId, credential.address, "attestation");
  const batchSchema = await deriveSchemaAddress(ledger.programId, credential.address, "batch");
  const payerBefore = balanceOf(ledger, payer.address);

  // When the payer runs initialize
  const outcome = await send(
    ledger,
    [await buildInitializeInstruction({ programId: ledger.programId, payer })],
    [],
    {
      feePayer: payer,
    },
  );

  // Then the Credential is the program's, 45 bytes: authority = program, name "ABAS", no signers
  expectSuccess(outcome);
  const credentialAccount = readAccount(ledger, credential.address);
  assert.equal(credentialAccount.owner, ledger.programId);
  assert.deepEqual(
    credentialAccount.data,
    bytes([0], addressBytes(ledger.programId), sized(utf8("ABAS")), u32(0)),
  );
  assert.equal(credentialAccount.data.length, 45);
  assert.deepEqual(decodeCredentialAccount(credentialAccount.data), {
    authority: ledger.programId,
    name: "ABAS",
    authorizedSigners: [],
  });

  // And the BehaviorAttestation Schema has the documented fields and SAS type codes
  const attestationSchemaAccount = readAccount(ledger, attestationSchema.address);
  assert.equal(attestationSchemaAccount.owner, ledger.programId);
  assert.deepEqual(
    attestationSchemaAccount.data,
    expectedSchemaBytes({
      credential: credential.address,
      name: "BehaviorAttestation",
      description: "One action of an autonomous agent, signed by the agent's key",
      layout: [0, 10, 13, 13, 13, 8, 3],
      fieldNames: [
        "action_type",
        "privacy_mode",
        "action_hash",
        "agent_signature",
        "operator",
        "timestamp",
        "slot",
      ],
    }),
  );

  // And the BehaviorBatch Schema too
  const batchSchemaAccount = readAccount(ledger, batchSchema.address);
  assert.equal(batchSchemaAccount.owner, ledger.programId);
  const batchFieldNames = [
    "merkle_root",
    "item_count",
    "action_types",
    "agent_signature",
    "operator",
    "timestamp",
    "slot",
    "leaves_published",
    "leaves",
  ];
  assert.deepEqual(
    batchSchemaAccount.data,
    expectedSchemaBytes({
      credential: credential.address,
      name: "BehaviorBatch",
      description: "A Merkle commitment to up to 100 actions of an autonomous agent",
      layout: [13, 0, 0, 13, 13, 8, 3, 0, 13],
      fieldNames: batchFieldNames,
    }),
  );
  const decodedBatchSchema = decodeSchemaAccount(batchSchemaAccount.data);
  assert.equal(decodedBatchSchema.name, "BehaviorBatch");
  assert.deepEqual(decodedBatchSchema.fieldNames, batchFieldNames);

  // And every account is rent-exempt, paid by the payer
  let rent = 0n;
  for (const account of [credentialAccount, attestationSchemaAccount, batchSchemaAccount]) {
    const minimum = ledger.svm.minimumBalanceForRentExemption(BigInt(account.data.length));
    assert.equal(account.lamports, minimum);
    rent += minimum;
  }
  assert.equal(payerBefore - balanceOf(ledger, payer.address), rent + 5_000n);
});

test("initialize a second time fails with AlreadyInitialized", async () => {
  // Given a deployment that is initialized
  const ledger = await createTestLedger();
  const credentialBefore = readAccount(ledger, ledger.credential);

  // When someone else runs initialize again
  const payer = await createFundedSigner(ledger);
  const outcome = await send(ledger, [
    await buildInitializeInstruction({ programId: ledger.programId, payer }),
  ]);

  // Then it fails with AlreadyInitialized and the Credential is unchanged
  expectProgramError(outcome, ABAS_PROGRAM__ALREADY_INITIALIZED);
  assert.deepEqual(readAccount(ledger, ledger.credential), credentialBefore);
});
