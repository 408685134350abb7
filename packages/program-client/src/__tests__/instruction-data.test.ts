import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_SDK__INTEGER_OUT_OF_RANGE, ABAS_SDK__INVALID_BYTE_LENGTH } from "@abas/errors";

import {
  ATTEST_BATCH_DATA_SIZE,
  ATTEST_DATA_SIZE,
  INITIALIZE_DATA_SIZE,
  PUBLISH_BATCH_LEAVES_HEADER_SIZE,
  REGISTER_AGENT_DATA_SIZE,
  UPDATE_AGENT_DATA_SIZE,
} from "../constants.js";
import { encodeAttestBatchInstructionData } from "../instructions/attest-batch.js";
import { encodeAttestInstructionData } from "../instructions/attest.js";
import { encodeInitializeInstructionData } from "../instructions/initialize.js";
import { encodePublishBatchLeavesInstructionData } from "../instructions/publish-batch-leaves.js";
import { encodeRegisterAgentInstructionData } from "../instructions/register-agent.js";
import { encodeUpdateAgentInstructionData } from "../instructions/update-agent.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { bytesOf } from "./byte-builder.js";
import { MERKLE_ROOT, STORED_HASH } from "./fixtures.js";

describe("instruction data encodings", () => {
  it("initialize: [0, credential_bump, attestation_schema_bump, batch_schema_bump, program_data_bump]", () => {
    const data = encodeInitializeInstructionData({
      credentialBump: 255,
      attestationSchemaBump: 254,
      batchSchemaBump: 7,
      programDataBump: 253,
    });
    assert.deepEqual(data, Uint8Array.of(0, 255, 254, 7, 253));
    assert.equal(data.length, INITIALIZE_DATA_SIZE);
  });

  it("register_agent: [1, agent_bump, allowed_action_types]", () => {
    const data = encodeRegisterAgentInstructionData({ agentBump: 250, allowedActionTypes: 0b1011 });
    assert.deepEqual(data, Uint8Array.of(1, 250, 0b1011));
    assert.equal(data.length, REGISTER_AGENT_DATA_SIZE);
  });

  it("update_agent: [2, status, allowed_action_types]", () => {
    const data = encodeUpdateAgentInstructionData({ status: 2, allowedActionTypes: 15 });
    assert.deepEqual(data, Uint8Array.of(2, 2, 15));
    assert.equal(data.length, UPDATE_AGENT_DATA_SIZE);
  });

  it("attest: [3, action_type, privacy_mode, attestation_bump, stored_hash(32)], 36 bytes", () => {
    const data = encodeAttestInstructionData({
      actionType: 3,
      privacyMode: true,
      attestationBump: 253,
      storedHash: STORED_HASH,
    });
    assert.deepEqual(data, Uint8Array.of(3, 3, 1, 253, ...STORED_HASH));
    assert.equal(data.length, ATTEST_DATA_SIZE);
  });

  it("attest_batch: [4, item_count, action_types, batch_bump, merkle_root(32)], 36 bytes", () => {
    const data = encodeAttestBatchInstructionData({
      itemCount: 100,
      actionTypes: 0b0110,
      batchBump: 251,
      merkleRoot: MERKLE_ROOT,
    });
    assert.deepEqual(data, Uint8Array.of(4, 100, 0b0110, 251, ...MERKLE_ROOT));
    assert.equal(data.length, ATTEST_BATCH_DATA_SIZE);
  });

  it("publish_batch_leaves: [5, start_index, leaf_count, leaf_data(34 × leaf_count)]", () => {
    const data = encodePublishBatchLeavesInstructionData({
      startIndex: 4,
      leaves: [
        { actionType: 1, privacyMode: false, storedHash: STORED_HASH },
        { actionType: 2, privacyMode: true, storedHash: MERKLE_ROOT },
      ],
    });
    assert.deepEqual(data, Uint8Array.of(5, 4, 2, 1, 0, ...STORED_HASH, 2, 1, ...MERKLE_ROOT));
    assert.equal(data.length, PUBLISH_BATCH_LEAVES_HEADER_SIZE + 2 * 34);
  });

  it("encodes values the program must reject, so its checks can be tested", () => {
    // Given out-of-domain values that still fit in a byte
    // When they are encoded with the low-level encoders
    // Then they are written as they are
    assert.deepEqual(
      encodeAttestInstructionData({
        actionType: 9,
        privacyMode: 2,
        attestationBump: 0,
        storedHash: STORED_HASH,
      }).subarray(0, 4),
      Uint8Array.of(3, 9, 2, 0),
    );
    assert.deepEqual(
      encodeUpdateAgentInstructionData({ status: 3, allowedActionTypes: 0 }),
      Uint8Array.of(2, 3, 0),
    );
    assert.deepEqual(
      encodePublishBatchLeavesInstructionData({
        startIndex: 200,
        leaves: [{ actionType: 4, privacyMode: 7, storedHash: STORED_HASH }],
      }).subarray(0, 5),
      Uint8Array.of(5, 200, 1, 4, 7),
    );
  });

  it("refuses values that do not fit their byte, and hashes that are not 32 bytes", () => {
    const error = assertThrowsAbasError(
      () => encodeRegisterAgentInstructionData({ agentBump: 256, allowedActionTypes: 1 }),
      ABAS_SDK__INTEGER_OUT_OF_RANGE,
    );
    assert.deepEqual([error.context.field, error.context.min, error.context.max], ["agentBump", 0, 255]);
    assertThrowsAbasError(
      () =>
        encodeAttestBatchInstructionData({
          itemCount: -1,
          actionTypes: 1,
          batchBump: 0,
          merkleRoot: MERKLE_ROOT,
        }),
      ABAS_SDK__INTEGER_OUT_OF_RANGE,
    );
    assertThrowsAbasError(
      () =>
        encodeAttestInstructionData({
          actionType: 0,
          privacyMode: false,
          attestationBump: 1.5,
          storedHash: STORED_HASH,
        }),
      ABAS_SDK__INTEGER_OUT_OF_RANGE,
    );
    assertThrowsAbasError(
      () =>
        encodeAttestInstructionData({
          actionType: 0,
          privacyMode: false,
          attestationBump: 1,
          storedHash: bytesOf(31, 0),
        }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
    const tooManyLeaves = Array.from({ length: 256 }, () => ({
      actionType: 0,
      privacyMode: false,
      storedHash: STORED_HASH,
    }));
    assertThrowsAbasError(
      () => encodePublishBatchLeavesInstructionData({ startIndex: 0, leaves: tooManyLeaves }),
      ABAS_SDK__INTEGER_OUT_OF_RANGE,
    );
  });
});
