import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  AGENT_ACCOUNT_SIZE,
  ATTESTATION_ACCOUNT_SIZE,
  CREDENTIAL_ACCOUNT_SIZE,
  CREDENTIAL_NAME,
} from "../constants.js";
import {
  getAgentSize,
  getAttestationSize,
  getCredentialEncoder,
  identifyAbasAttestationAccount,
  AbasAttestationAccount,
} from "../generated/index.js";
import { attestationAccountBytes } from "./account-bytes.js";
import { PROGRAM_ID } from "./fixtures.js";

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
