export { type AttestInput } from "./attest.js";
export { type BatchAttestInput, type BatchAttestItem, type BatchProgress } from "./batch-attest.js";
export {
  fetchBatchLeaves,
  readPublishedLeaves,
  type FetchBatchLeavesInput,
  type LedgerBatch,
  type ReadPublishedLeavesInput,
} from "./batch-leaves.js";
export { canonicalize } from "./canonicalize.js";
export { jsonAmbiguity } from "./json-ambiguity.js";
export {
  DEFAULT_COMMITMENT,
  DEFAULT_CONFIRMATION_TIMEOUT_MS,
  DEFAULT_MAX_SEND_ATTEMPTS,
  LOCAL_PROGRAM_ID,
  type AttestationClientConfig,
  type ResolvedClientSettings,
} from "./client-config.js";
export { AttestationClient } from "./client.js";
export { type CompleteBatchInput, type CompleteBatchResult } from "./complete-batch.js";
export { computeUnitLimitFromSimulation, DEFAULT_COMPUTE_UNIT_MARGIN } from "./compute-budget.js";
export {
  getAddressExplorerUrl,
  getExplorerCluster,
  getTransactionExplorerUrl,
  type ExplorerCluster,
} from "./explorer-url.js";
export { type FindAttestationInput, type FindBatchInput } from "./find-attestation.js";
export { hashAction, hashActionNow } from "./hash-action.js";
export { type ActionTypeInput, type AgentStatusName } from "./input-validation.js";
export { generateSecretKey, loadKeypair, readSecretKeyBytes, type KeypairSource } from "./keypair.js";
export * from "./receipts.js";
export {
  type AgentRecord,
  type AttestationRecord,
  type BatchLeafRecord,
  type BatchRecord,
} from "./records.js";
export { type AgentTransactionResult, type RegisterAgentInput } from "./register-agent.js";
export {
  sendAndConfirmTransaction,
  type SendSettings,
  type SentTransaction,
  type TransactionToSend,
} from "./send-transaction.js";
export { type RecordedToolCall } from "./tool-call.js";
export { TransactionFailure, type TransactionFailureStage } from "./transaction-errors.js";
export { type UpdateAgentInput, type UpdateAgentResult } from "./update-agent.js";
export {
  verifyReceipt,
  verifyReceiptOffline,
  type OfflineReceiptVerification,
  type OnChainTransaction,
  type ReceiptCheck,
  type ReceiptCheckName,
  type ReceiptChecks,
  type ReceiptKind,
  type ReceiptVerification,
  type VerifyReceiptOptions,
} from "./verify-receipt.js";
export * from "./api/index.js";
export * from "./action-lookup/index.js";
