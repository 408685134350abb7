/**
 * The program's accounts use the Solana Attestation Service layouts, so SAS's own client (sas-lib)
 * decodes them, and its schema-driven deserializer reads our attestation data.
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { ActionType } from "@abas/program-client";
import { getAddressDecoder, getAddressEncoder, type Address } from "@solana/kit";
import {
  deserializeAttestationData,
  getAttestationDecoder,
  getCredentialDecoder,
  getSchemaDecoder,
  type Schema,
} from "sas-lib";

import {
  attest,
  attestBatch,
  createTestLedger,
  hashPayload,
  publishLeaves,
  randomLeaves,
  readAccount,
  registerAgent,
  type TestLedger,
} from "./harness.js";

const text = (bytes: ArrayLike<number>) => new TextDecoder().decode(Uint8Array.from(bytes));
const bytesOf = (value: unknown) => Uint8Array.from(value as ArrayLike<number>);
const addressBytes = (address: Address) => Uint8Array.from(getAddressEncoder().encode(address));

function decodeSchema(ledger: TestLedger, address: Address): Schema {
  return getSchemaDecoder().decode(readAccount(ledger, address).data);
}

/** SAS keeps field names as one byte vector of u32-length-prefixed names. */
function fieldNames(schema: Schema): string[] {
  const bytes = Uint8Array.from(schema.fieldNames);
  const view = new DataView(bytes.buffer);
  const names: string[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const length = view.getUint32(offset, true);
    names.push(text(bytes.subarray(offset + 4, offset + 4 + length)));
    offset += 4 + length;
  }
  return names;
}

test("sas-lib decodes the Credential and both Schemas", async () => {
  // Given an initialized deployment
  const ledger = await createTestLedger();

  // When sas-lib decodes the Credential
  const credential = getCredentialDecoder().decode(readAccount(ledger, ledger.credential).data);

  // Then it is the program's, named ABAS, without authorized signers
  assert.equal(credential.discriminator, 0);
  assert.equal(credential.authority, ledger.programId);
  assert.equal(text(credential.name), "ABAS");
  assert.deepEqual(credential.authorizedSigners, []);

  // And both Schemas decode with their names, layouts and field names
  const attestationSchema = decodeSchema(ledger, ledger.attestationSchema);
  assert.equal(attestationSchema.discriminator, 1);
  assert.equal(attestationSchema.credential, ledger.credential);
  assert.equal(text(attestationSchema.name), "BehaviorAttestation");
  assert.equal(
    text(attestationSchema.description),
    "One action of an autonomous agent, signed by the agent's key",
  );
  assert.deepEqual([...attestationSchema.layout], [0, 10, 13, 13, 13, 8, 3]);
  assert.deepEqual(fieldNames(attestationSchema), [
    "action_type",
    "privacy_mode",
    "action_hash",
    "agent_signature",
    "operator",
    "timestamp",
    "slot",
  ]);
  assert.equal(attestationSchema.isPaused, false);
  assert.equal(attestationSchema.version, 1);

  const batchSchema = decodeSchema(ledger, ledger.batchSchema);
  assert.equal(text(batchSchema.name), "BehaviorBatch");
  assert.equal(
    text(batchSchema.description),
    "A Merkle commitment to up to 100 actions of an autonomous agent",
  );
  assert.deepEqual([...batchSchema.layout], [13, 0, 0, 13, 13, 8, 3, 0, 13]);
  assert.equal(fieldNames(batchSchema).at(-1), "frontier");
  assert.equal(batchSchema.isPaused, false);
  assert.equal(batchSchema.version, 2);
});

test("sas-lib decodes a single attestation and deserializes its data with the Schema", async () => {
  // Given an attestation recorded by the program
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const storedHash = hashPayload({ model: "small", prompt: "hello" });
  const recorded = await attest(ledger, {
    ...registered,
    actionType: ActionType.ModelInvocation,
    storedHash,
  });

  // When sas-lib decodes the account
  const attestation = getAttestationDecoder().decode(readAccount(ledger, recorded.attestation).data);

  // Then the SAS envelope is ours
  assert.equal(attestation.discriminator, 2);
  assert.deepEqual(addressBytes(attestation.nonce), storedHash);
  assert.equal(attestation.credential, ledger.credential);
  assert.equal(attestation.schema, ledger.attestationSchema);
  assert.equal(attestation.signer, registered.agent.address);
  assert.equal(attestation.expiry, 0n);
  assert.equal(attestation.tokenAccount, getAddressDecoder().decode(new Uint8Array(32)));

  // And deserializeAttestationData reads every field the Schema names
  const fields = deserializeAttestationData<Record<string, unknown>>(
    decodeSchema(ledger, ledger.attestationSchema),
    Uint8Array.from(attestation.data),
  );
  const clock = ledger.svm.getClock();
  assert.equal(fields.action_type, ActionType.ModelInvocation);
  assert.equal(fields.privacy_mode, false);
  assert.deepEqual(bytesOf(fields.action_hash), storedHash);
  assert.deepEqual(bytesOf(fields.agent_signature), Uint8Array.from(recorded.signature));
  assert.deepEqual(bytesOf(fields.operator), addressBytes(registered.operator.address));
  assert.equal(BigInt(fields.timestamp as bigint), clock.unixTimestamp);
  assert.equal(BigInt(fields.slot as bigint), clock.slot);
});

test("sas-lib decodes a batch attestation and deserializes its data, pending and complete", async () => {
  // Given a batch of 6 with its first 4 leaves published
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const batch = await attestBatch(ledger, { ...registered, leaves: randomLeaves(6) });
  const publish = (startIndex: number, end: number) =>
    publishLeaves(ledger, {
      operator: registered.operator,
      agent: registered.agent.address,
      merkleRoot: batch.merkleRoot,
      startIndex,
      leaves: batch.leaves.slice(startIndex, end),
    });
  await publish(0, 4);
  const batchSchema = decodeSchema(ledger, ledger.batchSchema);
  const decode = () => {
    const attestation = getAttestationDecoder().decode(readAccount(ledger, batch.batch).data);
    const fields = deserializeAttestationData<Record<string, unknown>>(
      batchSchema,
      Uint8Array.from(attestation.data),
    );
    return { attestation, fields };
  };

  // When sas-lib decodes the pending account
  const pending = decode();

  // Then the envelope names the batch Schema and the root as nonce
  assert.equal(pending.attestation.discriminator, 2);
  assert.deepEqual(addressBytes(pending.attestation.nonce), batch.merkleRoot);
  assert.equal(pending.attestation.schema, ledger.batchSchema);
  assert.equal(pending.attestation.signer, registered.agent.address);

  // And the BehaviorBatch fields deserialize, with the 224-byte Merkle frontier last
  const { fields } = pending;
  assert.deepEqual(bytesOf(fields.merkle_root), batch.merkleRoot);
  assert.equal(fields.item_count, 6);
  assert.equal(fields.action_types, batch.actionTypes);
  assert.deepEqual(bytesOf(fields.agent_signature), Uint8Array.from(batch.signature));
  assert.deepEqual(bytesOf(fields.operator), addressBytes(registered.operator.address));
  assert.equal(BigInt(fields.timestamp as bigint), ledger.svm.getClock().unixTimestamp);
  assert.equal(fields.leaves_published, 4);
  assert.equal(bytesOf(fields.frontier).length, 224);

  // And once the last leaves are published, the shrunk account decodes with an empty frontier
  await publish(4, 6);
  const complete = decode();
  assert.equal(complete.attestation.signer, registered.agent.address);
  assert.equal(complete.fields.leaves_published, 6);
  assert.deepEqual(bytesOf(complete.fields.frontier), new Uint8Array(0));
});
