import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_ACTION_TYPE_MASK,
  ABAS_SDK__INVALID_BATCH_SIZE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
} from "@abas/errors";

import { ActionType } from "../action-types.js";
import { buildAttestMessage, buildBatchMessage } from "../messages.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { ascii, ByteBuilder } from "./byte-builder.js";
import { addressBytes, AGENT, MERKLE_ROOT, PROGRAM_ID, STORED_HASH } from "./fixtures.js";

describe("attest message", () => {
  it("is tag ‖ program ‖ agent ‖ action_type ‖ privacy_mode ‖ stored_hash, 112 bytes", () => {
    // Given an attestation of a ToolCall in privacy mode
    // When its message is built
    const message = buildAttestMessage({
      programId: PROGRAM_ID,
      agent: AGENT,
      actionType: ActionType.ToolCall,
      privacyMode: true,
      storedHash: STORED_HASH,
    });
    // Then it is exactly the documented concatenation
    const expected = new ByteBuilder()
      .bytes(ascii("abas:attest:v1"))
      .bytes(addressBytes(PROGRAM_ID))
      .bytes(addressBytes(AGENT))
      .u8(1)
      .u8(1)
      .bytes(STORED_HASH)
      .build();
    assert.equal(message.length, 112);
    assert.deepEqual(message, expected);
  });

  it("encodes privacy off as 0 and the action type as its number", () => {
    const message = buildAttestMessage({
      programId: PROGRAM_ID,
      agent: AGENT,
      actionType: ActionType.ModelInvocation,
      privacyMode: false,
      storedHash: STORED_HASH,
    });
    assert.equal(message[78], 3);
    assert.equal(message[79], 0);
  });

  it("differs between two program deployments", () => {
    // Given the same attestation for two program addresses
    const input = {
      agent: AGENT,
      actionType: ActionType.Decision,
      privacyMode: false,
      storedHash: STORED_HASH,
    };
    const first = buildAttestMessage({ ...input, programId: PROGRAM_ID });
    const second = buildAttestMessage({ ...input, programId: AGENT });
    // Then the signed bytes differ, so a signature cannot be replayed at another deployment
    assert.notDeepEqual(first, second);
  });

  it("rejects invalid input with the named SDK error", () => {
    const valid = {
      programId: PROGRAM_ID,
      agent: AGENT,
      actionType: ActionType.Transaction,
      privacyMode: false,
      storedHash: STORED_HASH,
    } as const;
    assertThrowsAbasError(
      () => buildAttestMessage({ ...valid, actionType: 4 as ActionType }),
      ABAS_SDK__INVALID_ACTION_TYPE,
    );
    assertThrowsAbasError(
      () => buildAttestMessage({ ...valid, privacyMode: 1 as unknown as boolean }),
      ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
    );
    const error = assertThrowsAbasError(
      () => buildAttestMessage({ ...valid, storedHash: STORED_HASH.slice(1) }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
    assert.deepEqual(
      {
        field: error.context.field,
        expected: error.context.expectedLength,
        actual: error.context.actualLength,
      },
      { field: "storedHash", expected: 32, actual: 31 },
    );
  });
});

describe("batch message", () => {
  it("is tag ‖ program ‖ agent ‖ item_count ‖ action_types ‖ merkle_root, 111 bytes", () => {
    // Given a batch of 100 items that may be Transactions or Decisions
    // When its message is built
    const message = buildBatchMessage({
      programId: PROGRAM_ID,
      agent: AGENT,
      itemCount: 100,
      actionTypes: 0b0101,
      merkleRoot: MERKLE_ROOT,
    });
    // Then it is exactly the documented concatenation
    const expected = new ByteBuilder()
      .bytes(ascii("abas:batch:v1"))
      .bytes(addressBytes(PROGRAM_ID))
      .bytes(addressBytes(AGENT))
      .u8(100)
      .u8(0b0101)
      .bytes(MERKLE_ROOT)
      .build();
    assert.equal(message.length, 111);
    assert.deepEqual(message, expected);
  });

  it("rejects item counts outside 1..=100, masks outside 1..=15 and roots that are not 32 bytes", () => {
    const valid = {
      programId: PROGRAM_ID,
      agent: AGENT,
      itemCount: 1,
      actionTypes: 1,
      merkleRoot: MERKLE_ROOT,
    };
    for (const itemCount of [0, 101, 1.5, -1]) {
      assertThrowsAbasError(() => buildBatchMessage({ ...valid, itemCount }), ABAS_SDK__INVALID_BATCH_SIZE);
    }
    for (const actionTypes of [0, 16, 255]) {
      assertThrowsAbasError(
        () => buildBatchMessage({ ...valid, actionTypes }),
        ABAS_SDK__INVALID_ACTION_TYPE_MASK,
      );
    }
    assertThrowsAbasError(
      () => buildBatchMessage({ ...valid, merkleRoot: new Uint8Array(33) }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});
