export * from "./create-database.js";
export * from "./migrate.js";
export * from "./schema.js";
export * from "./api-keys.js";
export * from "./queries/index.js";
export * from "./reputation.js";
export * from "./web-sign-in.js";
