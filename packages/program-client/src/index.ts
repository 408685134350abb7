export * from "./accounts/agent-account.js";
export * from "./accounts/attestation-account.js";
export type { AttestationEnvelope } from "./accounts/attestation-envelope.js";
export * from "./accounts/batch-account.js";
export * from "./accounts/credential-account.js";
export * from "./accounts/program-account.js";
export * from "./accounts/schema-account.js";
export * from "./action-types.js";
export * from "./addresses.js";
export * from "./agent-status.js";
export { decodeBase58, encodeBase58 } from "./base58.js";
export * from "./constants.js";
export * from "./ed25519-instruction.js";
export * from "./errors.js";
export { toAddress } from "./fast-addresses.js";
export * from "./hashing.js";
export * from "./hex.js";
export type { AbasInstruction } from "./instructions/account-metas.js";
export * from "./instructions/attest-batch.js";
export * from "./instructions/attest.js";
export * from "./instructions/initialize.js";
export * from "./instructions/publish-batch-leaves.js";
export * from "./instructions/register-agent.js";
export * from "./instructions/update-agent.js";
export {
  computeLeafHash,
  decodeLeafData,
  encodeLeafData,
  type LeafData,
  type RawLeafData,
} from "./leaf-data.js";
export * from "./merkle.js";
export * from "./messages.js";
export * from "./schemas.js";
export * from "./transactions/program-instructions.js";
export * from "./upgradeable-loader.js";
export * from "./plain-numbers.js";
// The client generated from the IDL (program/idl/abas-idl.ts). Where a name is also a hand-written
// domain helper above, the helper is the package's export.
export * from "./generated/index.js";
export { ActionType } from "./action-types.js";
export { AgentStatus } from "./agent-status.js";
export { type PublishBatchLeavesInstructionData } from "./instructions/publish-batch-leaves.js";
