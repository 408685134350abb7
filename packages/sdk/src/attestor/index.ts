export { Attestor, type AttestorMetrics, type RecordedAction } from "./attestor.js";
export {
  DEFAULT_MAX_BATCH_ATTEMPTS,
  DEFAULT_MAX_BATCH_DELAY_MS,
  DEFAULT_MAX_BATCH_SIZE,
  DEFAULT_MAX_IN_FLIGHT_BATCHES,
  DEFAULT_MAX_QUEUED_ACTIONS,
  DEFAULT_RETRY_DELAY_MS,
  DEFAULT_SYNC_INTERVAL_MS,
  type AttestorOptions,
} from "./attestor-options.js";
export { appendWhole } from "./append-whole.js";
export { makeFolders } from "./make-folders.js";
export { QUEUE_FILE_NAME, queuedActionHashes, syncDirectory, type QueueDurability } from "./queue-journal.js";
export { type RecordInput } from "./record-input.js";
