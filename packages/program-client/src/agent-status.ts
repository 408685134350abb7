import { assertAgentStatus } from "./validation.js";

/** An agent's status. Revoked is final. */
export const AgentStatus = {
  Active: 0,
  Suspended: 1,
  Revoked: 2,
} as const;
export type AgentStatus = (typeof AgentStatus)[keyof typeof AgentStatus];
export type AgentStatusName = keyof typeof AgentStatus;

export const AGENT_STATUSES: readonly AgentStatus[] = Object.values(AgentStatus);

export function isAgentStatus(value: unknown): value is AgentStatus {
  return (AGENT_STATUSES as readonly unknown[]).includes(value);
}

export function getAgentStatusName(status: AgentStatus): AgentStatusName {
  assertAgentStatus(status);
  return (Object.keys(AgentStatus) as AgentStatusName[]).find((name) => AgentStatus[name] === status)!;
}

/** The status named `name` (`"Revoked"` -> 2), or undefined for an unknown name. */
export function getAgentStatusFromName(name: string): AgentStatus | undefined {
  return Object.prototype.hasOwnProperty.call(AgentStatus, name)
    ? AgentStatus[name as AgentStatusName]
    : undefined;
}
