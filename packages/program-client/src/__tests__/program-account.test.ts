import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
  ABAS_SDK__UNKNOWN_ACCOUNT_TYPE,
} from "@abas/errors";

import { decodeProgramAccount } from "../accounts/program-account.js";
import {
  AGENT_ACCOUNT_SIZE,
  ATTESTATION_ACCOUNT_SIZE,
  CREDENTIAL_ACCOUNT_SIZE,
  CREDENTIAL_NAME,
} from "../constants.js";
import {
  AbasAttestationAccount,
  getAgentSize,
  getAttestationSize,
  getCredentialEncoder,
  identifyAbasAttestationAccount,
} from "../generated/index.js";
import {
  agentAccountBytes,
  attestationAccountBytes,
  ATTESTATION_SCHEMA,
  batchAccountBytes,
  BATCH_SCHEMA,
  credentialAccountBytes,
  DOCUMENTED_ATTESTATION_SCHEMA,
  DOCUMENTED_BATCH_SCHEMA,
  schemaAccountBytes,
} from "./account-bytes.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { addressOf, PROGRAM_ID } from "./fixtures.js";

describe("decodeProgramAccount", () => {
  it("tells every account type apart by its first byte", () => {
    assert.equal(decodeProgramAccount(credentialAccountBytes()).type, "credential");
    assert.equal(decodeProgramAccount(agentAccountBytes()).type, "agent");
  });

  it("tells the two Schemas apart by their names", () => {
    const attestationSchema = decodeProgramAccount(schemaAccountBytes(DOCUMENTED_ATTESTATION_SCHEMA));
    const batchSchema = decodeProgramAccount(schemaAccountBytes(DOCUMENTED_BATCH_SCHEMA));
    assert.deepEqual(
      [attestationSchema.type, attestationSchema.type === "schema" && attestationSchema.kind],
      ["schema", "attestation"],
    );
    assert.deepEqual(
      [batchSchema.type, batchSchema.type === "schema" && batchSchema.kind],
      ["schema", "batch"],
    );
  });

  it("rejects a Schema with another name", () => {
    const data = schemaAccountBytes({ ...DOCUMENTED_BATCH_SCHEMA, name: "SomethingElse" });
    const error = assertThrowsAbasError(() => decodeProgramAccount(data), ABAS_SDK__MALFORMED_ACCOUNT_DATA);
    assert.equal(error.context.field, "name");
  });

  it("tells a single from a batch attestation by the data length", () => {
    assert.equal(decodeProgramAccount(attestationAccountBytes()).type, "attestation");
    assert.equal(decodeProgramAccount(batchAccountBytes()).type, "batch");
  });

  it("tells a single from a batch attestation by the schema, when given the program's Schemas", () => {
    const schemas = { attestation: ATTESTATION_SCHEMA, batch: BATCH_SCHEMA };
    assert.equal(decodeProgramAccount(attestationAccountBytes(), { schemas }).type, "attestation");
    assert.equal(decodeProgramAccount(batchAccountBytes(), { schemas }).type, "batch");
    // An attestation of a Schema that is not the program's is refused.
    const foreign = { attestation: addressOf(0xee), batch: addressOf(0xef) };
    const error = assertThrowsAbasError(
      () => decodeProgramAccount(attestationAccountBytes(), { schemas: foreign }),
      ABAS_SDK__MALFORMED_ACCOUNT_DATA,
    );
    assert.equal(error.context.field, "schema");
  });

  it("reports an unknown first byte, and empty or truncated data", () => {
    const error = assertThrowsAbasError(
      () => decodeProgramAccount(Uint8Array.of(7, 0, 0)),
      ABAS_SDK__UNKNOWN_ACCOUNT_TYPE,
    );
    assert.equal(error.context.discriminator, 7);
    assertThrowsAbasError(() => decodeProgramAccount(new Uint8Array()), ABAS_SDK__ACCOUNT_DATA_TOO_SHORT);
    assertThrowsAbasError(
      () => decodeProgramAccount(attestationAccountBytes().subarray(0, 99)),
      ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
    );
  });
});

describe("the account sizes the IDL states", () => {
  it("are the sizes of the layouts it describes, which the decoders check", () => {
    // The IDL states a size beside each fixed layout (and tells attestations from batches by it):
    // an edit to a layout that forgets the size fails here, not as misread accounts.
    assert.equal(getAttestationSize(), ATTESTATION_ACCOUNT_SIZE);
    assert.equal(getAgentSize(), AGENT_ACCOUNT_SIZE);
    const programCredential = { authority: PROGRAM_ID, name: CREDENTIAL_NAME, authorizedSigners: [] };
    assert.equal(getCredentialEncoder().encode(programCredential).length, CREDENTIAL_ACCOUNT_SIZE);
    assert.equal(
      identifyAbasAttestationAccount(attestationAccountBytes()),
      AbasAttestationAccount.Attestation,
    );
  });
});
