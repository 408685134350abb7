import type { Static } from "@sinclair/typebox";

import { StringEnum } from "./schema-builders.js";

export const ACTION_TYPE_NAMES = ["Transaction", "ToolCall", "Decision", "ModelInvocation"] as const;

export const ApiActionTypeName = StringEnum(ACTION_TYPE_NAMES, {
  description: "What the attested action is",
});
export type ApiActionTypeName = Static<typeof ApiActionTypeName>;
