export * from "./action-types.js";
export * from "./api-attestation.js";
export * from "./cursor.js";
export * from "./get-agent.js";
export * from "./get-attestation.js";
export * from "./indexer-status.js";
export * from "./ledger-time.js";
export * from "./list-attestations.js";
