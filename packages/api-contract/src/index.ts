export * from "./action-type.js";
export * from "./agent.js";
export * from "./attestation.js";
export * from "./check-response.js";
export * from "./health.js";
export * from "./problem.js";
export * from "./schema-builders.js";
export { CONTRACT_STRING_FORMATS } from "./string-formats.js";
export type { Static, TObject, TSchema } from "@sinclair/typebox";
