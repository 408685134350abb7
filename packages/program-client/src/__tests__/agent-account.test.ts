import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
} from "@abas/errors";

import { decodeAgentAccount } from "../accounts/agent-account.js";
import { AgentStatus } from "../agent-status.js";
import { AGENT_ACCOUNT_SIZE } from "../constants.js";
import { agentAccountBytes } from "./account-bytes.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { AGENT, OPERATOR } from "./fixtures.js";

describe("decodeAgentAccount", () => {
  it("decodes every field of the 128-byte layout", () => {
    // Given an agent account assembled from the documented offsets
    const data = agentAccountBytes();
    assert.equal(data.length, AGENT_ACCOUNT_SIZE);
    // When it is decoded
    // Then every field has its value, with 64-bit fields as bigints of the right sign
    assert.deepEqual(decodeAgentAccount(data), {
      layoutVersion: 1,
      bump: 254,
      status: AgentStatus.Suspended,
      allowedActionTypes: 0b0101,
      operator: OPERATOR,
      agent: AGENT,
      registeredAt: 1_700_000_000n,
      registeredSlot: 123_456_789n,
      updatedAt: -1n,
      attestationCount: 2n ** 64n - 1n,
      batchCount: 7n,
      batchItemCount: 350n,
      lastAttestedAt: 1_700_000_500n,
    });
  });

  it("reports empty data as too short", () => {
    assertThrowsAbasError(() => decodeAgentAccount(new Uint8Array()), ABAS_SDK__ACCOUNT_DATA_TOO_SHORT);
  });

  it("reports another account type by its first byte", () => {
    const error = assertThrowsAbasError(
      () => decodeAgentAccount(agentAccountBytes({ discriminator: 2 })),
      ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
    );
    assert.deepEqual([error.context.expected, error.context.actual], [16, 2]);
  });

  it("reports data shorter or longer than 128 bytes", () => {
    const data = agentAccountBytes();
    for (const resized of [data.subarray(0, 127), data.subarray(0, 1), Uint8Array.from([...data, 0])]) {
      const error = assertThrowsAbasError(() => decodeAgentAccount(resized), ABAS_SDK__INVALID_ACCOUNT_SIZE);
      assert.deepEqual([error.context.expectedSize, error.context.actualSize], [128, resized.length]);
    }
  });

  it("reports an unknown layout version, status, policy or non-zero reserved bytes as malformed", () => {
    const cases = [
      [{ version: 2 }, "layout_version"],
      // An enum byte out of range is refused by the generated decoder, which does not name it.
      [{ status: 3 }, undefined],
      [{ allowedActionTypes: 0 }, "allowed_action_types"],
      [{ allowedActionTypes: 16 }, "allowed_action_types"],
      [{ reserved: [0, 1, 0] }, "reserved"],
    ] as const;
    for (const [overrides, field] of cases) {
      const error = assertThrowsAbasError(
        () => decodeAgentAccount(agentAccountBytes(overrides)),
        ABAS_SDK__MALFORMED_ACCOUNT_DATA,
      );
      assert.equal(error.context.field, field);
      assert.equal(error.context.accountType, "Agent");
    }
  });

  it("decodes from a view into a larger buffer", () => {
    // Given account data that sits at an offset inside a bigger buffer (as RPC decoders produce)
    const padded = new Uint8Array(AGENT_ACCOUNT_SIZE + 10);
    padded.set(agentAccountBytes(), 5);
    const view = padded.subarray(5, 5 + AGENT_ACCOUNT_SIZE);
    // Then it decodes the same as the data on its own
    assert.deepEqual(decodeAgentAccount(view), decodeAgentAccount(agentAccountBytes()));
  });
});
