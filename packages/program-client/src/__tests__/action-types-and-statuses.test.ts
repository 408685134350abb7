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
