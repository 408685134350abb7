import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_SDK__INTEGER_OUT_OF_RANGE, ABAS_SDK__INVALID_BYTE_LENGTH } from "@abas/errors";

import { encodeAttestBatchInstructionData } from "../instructions/attest-batch.js";
import { encodeAttestInstructionData } from "../instructions/attest.js";
import { encodePublishBatchLeavesInstructionData } from "../instructions/publish-batch-leaves.js";
import { encodeRegisterAgentInstructionData } from "../instructions/register-agent.js";
import { encodeUpdateAgentInstructionData } from "../instructions/update-agent.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { bytesOf } from "./byte-builder.js";
import { MERKLE_ROOT, STORED_HASH } from "./fixtures.js";

describe("instruction data encodings", () => {
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
