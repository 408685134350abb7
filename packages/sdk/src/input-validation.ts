/**
 * Checks of what callers pass to the client. Each throws the ABAS_SDK error that names the
 * problem, before anything is signed or sent.
 */
import {
  ABAS_SDK__INVALID_ACTION_HASH,
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_AGENT_STATUS,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__INVALID_BATCH_SIZE,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
  ABAS_SDK__INVALID_SALT,
  AbasError,
} from "@abas/errors";
import {
  ActionType,
  actionTypesMask,
  AgentStatus,
  ALL_ACTION_TYPES_MASK,
  getActionTypeFromName,
  hexToBytes,
  isActionType,
  MAX_BATCH_ITEMS,
  SALT_SIZE,
  type ActionTypeName,
} from "@abas/program-client";
import { isAddress, type Address } from "@solana/kit";

const HASH_HEX_LENGTH = 64;

/** Why `value` is not 64 hex characters, or undefined when it is. */
function hexProblem(value: unknown, length: number): string | undefined {
  if (typeof value !== "string") return `got ${value === null ? "null" : typeof value}`;
  if (value.length !== length) return `got ${value.length} characters`;
  const position = value.search(/[^0-9a-fA-F]/);
  return position === -1 ? undefined : `the character at index ${position} is not hexadecimal`;
}

/** The 32 bytes of an action hash (or a stored hash, a Merkle root) written as 64 hex characters. */
export function parseHash(value: unknown, field: string): Uint8Array {
  const reason = hexProblem(value, HASH_HEX_LENGTH);
  if (reason !== undefined) throw new AbasError(ABAS_SDK__INVALID_ACTION_HASH, { field, reason });
  return hexToBytes(value as string, 32);
}

/** A privacy salt: 32 bytes as 64 hex characters. The error never repeats the value: it is a secret. */
export function parseSalt(value: unknown): Uint8Array {
  const reason = hexProblem(value, SALT_SIZE * 2);
  if (reason !== undefined) throw new AbasError(ABAS_SDK__INVALID_SALT, { reason });
  return hexToBytes(value as string, SALT_SIZE);
}

/**
 * An action type by name (`"ToolCall"`) as the specification writes it, or by its on-chain number
 * (`ActionType.ToolCall`, 1).
 */
export type ActionTypeInput = ActionTypeName | ActionType;

export function parseActionType(value: unknown): ActionType {
  if (isActionType(value)) return value;
  const fromName = typeof value === "string" ? getActionTypeFromName(value) : undefined;
  if (fromName === undefined) throw new AbasError(ABAS_SDK__INVALID_ACTION_TYPE, { actionType: value });
  return fromName;
}

/** Omitted means normal mode; anything but a boolean is refused rather than read as truthy. */
export function parsePrivacyMode(value: unknown): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean")
    throw new AbasError(ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE, { privacyMode: value });
  return value;
}

/** The action types an agent may attest; omitted means all four. */
export function parseAllowedActionTypes(value: unknown): number {
  if (value === undefined) return ALL_ACTION_TYPES_MASK;
  if (!Array.isArray(value) || value.length === 0) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "allowedActionTypes",
      reason: 'expected a non-empty list of action types such as ["ToolCall", "Decision"]',
    });
  }
  return actionTypesMask(value.map(parseActionType));
}

export type AgentStatusName = "active" | "suspended" | "revoked";

const AGENT_STATUS_BY_NAME: Readonly<Record<AgentStatusName, AgentStatus>> = {
  active: AgentStatus.Active,
  suspended: AgentStatus.Suspended,
  revoked: AgentStatus.Revoked,
};

export function parseAgentStatus(value: unknown): AgentStatus {
  if (typeof value === "string" && Object.prototype.hasOwnProperty.call(AGENT_STATUS_BY_NAME, value)) {
    return AGENT_STATUS_BY_NAME[value as AgentStatusName];
  }
  throw new AbasError(ABAS_SDK__INVALID_AGENT_STATUS, { status: value });
}

export function getAgentStatusName(status: AgentStatus): AgentStatusName {
  return (Object.keys(AGENT_STATUS_BY_NAME) as AgentStatusName[]).find(
    (name) => AGENT_STATUS_BY_NAME[name] === status,
  )!;
}

export function parseAddress(value: unknown, argument: string): Address {
  if (typeof value !== "string" || !isAddress(value)) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument,
      reason: "expected a base58 Solana address (32 bytes)",
    });
  }
  return value;
}

export function assertObject(value: unknown, argument: string): asserts value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument, reason: "expected an object" });
  }
}

/** A batch holds 1 to 100 items. */
export function assertBatchItems(value: unknown): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "attestations",
      reason: "expected an array of 1 to 100 items",
    });
  }
  if (value.length < 1 || value.length > MAX_BATCH_ITEMS) {
    throw new AbasError(ABAS_SDK__INVALID_BATCH_SIZE, {
      itemCount: value.length,
      maxItemCount: MAX_BATCH_ITEMS,
    });
  }
}

export type ParsedAction = Readonly<{
  actionHash: Uint8Array;
  actionType: ActionType;
  privacyMode: boolean;
}>;

/**
 * One action to attest: `{ actionHash, actionType, privacyMode? }`. `itemName` names a batch item
 * (`attestations[3]`) in errors; a single attestation's fields are named alone.
 */
export function parseAction(value: unknown, itemName?: string): ParsedAction {
  assertObject(value, itemName ?? "input");
  return {
    actionHash: parseHash(value.actionHash, itemName === undefined ? "actionHash" : `${itemName}.actionHash`),
    actionType: parseActionType(value.actionType),
    privacyMode: parsePrivacyMode(value.privacyMode),
  };
}
