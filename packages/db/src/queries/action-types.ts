/**
 * Action type names as the API shows them, and the on-chain policy bit mask (bit t = type t).
 * Kept here rather than imported from the program client so the database layer stays free of
 * Solana dependencies; the numbers are the program's (docs/program.md).
 */
import type { AttestationsTable } from "../schema.js";

export type ActionTypeName = AttestationsTable["action_type"];

/** In on-chain order: index = the action type number. */
export const ACTION_TYPE_NAMES: readonly ActionTypeName[] = [
  "Transaction",
  "ToolCall",
  "Decision",
  "ModelInvocation",
];

export function isActionTypeName(value: unknown): value is ActionTypeName {
  return (ACTION_TYPE_NAMES as readonly unknown[]).includes(value);
}

/** The names a policy mask allows, in on-chain order. */
export function actionTypeNamesFromMask(mask: number): ActionTypeName[] {
  return ACTION_TYPE_NAMES.filter((_, index) => (mask & (1 << index)) !== 0);
}

export function actionTypeMask(names: readonly ActionTypeName[]): number {
  return names.reduce((mask, name) => mask | (1 << ACTION_TYPE_NAMES.indexOf(name)), 0);
}

/** A record with one entry per action type, every value `initial`. */
export function perActionType<T>(initial: T): Record<ActionTypeName, T> {
  return { Transaction: initial, ToolCall: initial, Decision: initial, ModelInvocation: initial };
}
