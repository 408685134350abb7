export * from "./config.js";
export * from "./start-service.js";
export * from "./running-service-text.js";
export * from "./build-service-app.js";
