import { ABAS_SDK__INVALID_ACTION_TYPE_MASK, AbasError } from "@abas/errors";

import { assertActionType, assertActionTypeMask } from "./validation.js";

/** What an attested action is. The number is what goes on chain. */
export const ActionType = {
  Transaction: 0,
  ToolCall: 1,
  Decision: 2,
  ModelInvocation: 3,
} as const;
export type ActionType = (typeof ActionType)[keyof typeof ActionType];
export type ActionTypeName = keyof typeof ActionType;

export const ACTION_TYPES: readonly ActionType[] = Object.values(ActionType);
/** The mask that allows every action type. */
export const ALL_ACTION_TYPES_MASK = 0b1111;

export function isActionType(value: unknown): value is ActionType {
  return (ACTION_TYPES as readonly unknown[]).includes(value);
}

export function getActionTypeName(actionType: ActionType): ActionTypeName {
  assertActionType(actionType);
  return (Object.keys(ActionType) as ActionTypeName[]).find((name) => ActionType[name] === actionType)!;
}

/** The action type named `name` (`"ToolCall"` -> 1), or undefined for an unknown name. */
export function getActionTypeFromName(name: string): ActionType | undefined {
  return Object.prototype.hasOwnProperty.call(ActionType, name)
    ? ActionType[name as ActionTypeName]
    : undefined;
}

/** The on-chain bit mask of a set of action types: bit `t` allows type `t`. */
export function actionTypesMask(actionTypes: readonly ActionType[]): number {
  let mask = 0;
  for (const actionType of actionTypes) {
    assertActionType(actionType);
    mask |= 1 << actionType;
  }
  if (mask === 0) throw new AbasError(ABAS_SDK__INVALID_ACTION_TYPE_MASK, { mask });
  return mask;
}

/** The action types a mask allows, in ascending order. */
export function actionTypesFromMask(mask: number): ActionType[] {
  assertActionTypeMask(mask);
  return ACTION_TYPES.filter((actionType) => isActionTypeAllowed(mask, actionType));
}

export function isActionTypeAllowed(mask: number, actionType: ActionType): boolean {
  return (mask & (1 << actionType)) !== 0;
}
