import { UsageError } from "./usage-error.js";

export const ACTION_TYPE_NAMES = ["Transaction", "ToolCall", "Decision", "ModelInvocation"] as const;
export type ActionTypeName = (typeof ACTION_TYPE_NAMES)[number];

export function isActionTypeName(value: unknown): value is ActionTypeName {
  return typeof value === "string" && (ACTION_TYPE_NAMES as readonly string[]).includes(value);
}

export function parseActionType(value: string, option = "--type"): ActionTypeName {
  if (!isActionTypeName(value)) {
    throw new UsageError(
      `${option}: unknown action type "${value}"; use one of ${ACTION_TYPE_NAMES.join(", ")}`,
    );
  }
  return value;
}

/** `--types ToolCall,Decision`. */
export function parseActionTypeList(value: string, option = "--types"): ActionTypeName[] {
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) throw new UsageError(`${option}: give at least one action type`);
  return names.map((name) => parseActionType(name, option));
}
