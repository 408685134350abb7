export * from "./config.js";
export * from "./start-service.js";
