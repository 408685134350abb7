export * from "./abas-error.js";
export * from "./codes.js";
export * from "./context.js";
export * from "./format-message.js";
export * from "./messages.js";
export * from "./program-errors.js";
export * from "./code-names.js";
export * from "./innermost-message.js";
