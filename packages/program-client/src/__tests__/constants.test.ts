import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_ACTION_TYPE_MASK,
  ABAS_SDK__INVALID_AGENT_STATUS,
} from "@abas/errors";

import {
  ACTION_TYPES,
  ActionType,
  actionTypesFromMask,
  actionTypesMask,
  ALL_ACTION_TYPES_MASK,
  getActionTypeFromName,
  getActionTypeName,
  isActionType,
  isActionTypeAllowed,
} from "../action-types.js";
import { AgentStatus, getAgentStatusFromName, getAgentStatusName, isAgentStatus } from "../agent-status.js";
import {
  AccountDiscriminator,
  ATTESTATION_ACCOUNT_SIZE,
  ATTESTATION_DATA_SIZE,
  ATTESTATION_ENVELOPE_SIZE,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
  MERKLE_FRONTIER_SIZE,
  InstructionDiscriminator,
  INSTRUCTIONS_SYSVAR_ADDRESS,
  LEAF_DATA_SIZE,
  MAX_BATCH_ITEMS,
  SYSTEM_PROGRAM_ADDRESS,
} from "../constants.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";

describe("action types", () => {
  it("number Transaction 0, ToolCall 1, Decision 2, ModelInvocation 3", () => {
    assert.deepEqual(ActionType, { Transaction: 0, ToolCall: 1, Decision: 2, ModelInvocation: 3 });
    assert.deepEqual(ACTION_TYPES, [0, 1, 2, 3]);
  });

  it("convert between numbers and names", () => {
    assert.equal(getActionTypeName(ActionType.ModelInvocation), "ModelInvocation");
    assert.equal(getActionTypeFromName("ToolCall"), 1);
    assert.equal(getActionTypeFromName("toString"), undefined);
    assert.equal(isActionType(3), true);
    assert.equal(isActionType(4), false);
    assertThrowsAbasError(() => getActionTypeName(9 as ActionType), ABAS_SDK__INVALID_ACTION_TYPE);
  });

  it("make a bit mask with bit t for type t, and read it back", () => {
    assert.equal(actionTypesMask([ActionType.Transaction, ActionType.Decision]), 0b0101);
    assert.equal(actionTypesMask([ActionType.ModelInvocation, ActionType.ModelInvocation]), 0b1000);
    assert.equal(actionTypesMask(ACTION_TYPES), ALL_ACTION_TYPES_MASK);
    assert.deepEqual(actionTypesFromMask(0b1010), [ActionType.ToolCall, ActionType.ModelInvocation]);
    assert.equal(isActionTypeAllowed(0b0100, ActionType.Decision), true);
    assert.equal(isActionTypeAllowed(0b0100, ActionType.ToolCall), false);
  });

  it("refuse an empty mask or an unknown type", () => {
    assertThrowsAbasError(() => actionTypesMask([]), ABAS_SDK__INVALID_ACTION_TYPE_MASK);
    assertThrowsAbasError(() => actionTypesMask([4 as ActionType]), ABAS_SDK__INVALID_ACTION_TYPE);
    assertThrowsAbasError(() => actionTypesFromMask(16), ABAS_SDK__INVALID_ACTION_TYPE_MASK);
  });
});

describe("agent statuses", () => {
  it("number Active 0, Suspended 1, Revoked 2, with name helpers", () => {
    assert.deepEqual(AgentStatus, { Active: 0, Suspended: 1, Revoked: 2 });
    assert.equal(getAgentStatusName(AgentStatus.Revoked), "Revoked");
    assert.equal(getAgentStatusFromName("Suspended"), 1);
    assert.equal(getAgentStatusFromName("Deleted"), undefined);
    assert.equal(isAgentStatus(2), true);
    assert.equal(isAgentStatus(3), false);
    assertThrowsAbasError(() => getAgentStatusName(3 as AgentStatus), ABAS_SDK__INVALID_AGENT_STATUS);
  });
});

describe("layout constants", () => {
  it("match the documented discriminators", () => {
    assert.deepEqual(AccountDiscriminator, { Credential: 0, Schema: 1, Attestation: 2, Agent: 16 });
    assert.deepEqual(Object.values(InstructionDiscriminator), [0, 1, 2, 3, 4, 5]);
  });

  it("match the documented sizes: 331 for a single attestation, 560 for a pending batch and 336 once complete", () => {
    assert.equal(LEAF_DATA_SIZE, 34);
    assert.equal(MAX_BATCH_ITEMS, 100);
    assert.equal(ATTESTATION_DATA_SIZE, 158);
    assert.equal(ATTESTATION_ENVELOPE_SIZE + ATTESTATION_DATA_SIZE, ATTESTATION_ACCOUNT_SIZE);
    assert.equal(ATTESTATION_ACCOUNT_SIZE, 331);
    assert.equal(MERKLE_FRONTIER_SIZE, 7 * 32);
    assert.equal(BATCH_PENDING_ACCOUNT_SIZE, 560);
    assert.equal(BATCH_COMPLETE_ACCOUNT_SIZE, 336);
  });

  it("name the well-known programs and sysvar", () => {
    assert.equal(INSTRUCTIONS_SYSVAR_ADDRESS, "Sysvar1nstructions1111111111111111111111111");
    assert.equal(SYSTEM_PROGRAM_ADDRESS, "11111111111111111111111111111111");
  });
});
