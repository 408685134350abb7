export { CallJournal } from "./call-journal.js";
export { MessageLines, parseMessages } from "./message-lines.js";
export { parseProxyConfig, proxyFolders, PROXY_USAGE, type ProxyConfig } from "./proxy-config.js";
export { runProxy, type ProxyStreams, type ServerExit } from "./proxy.js";
export {
  actionOfReceiptFile,
  hashToolCall,
  outcomeOfReceiptFile,
  parseReceiptFile,
  readReceiptsFolder,
  receiptFilePath,
  summarizeReceiptFile,
  verifyReceiptFile,
  writeReceiptFile,
  type KeptAction,
  type ReceiptFile,
  type ReceiptFileEntry,
  type ReceiptFileSummary,
  type ReceiptsFolder,
  type SavedReceiptFile,
  type UnreadableReceiptFile,
  type ToolCallOutcome,
} from "./receipts-folder.js";
export { ToolCallTracker, type RecordedToolCall, type ToolCallAction } from "./tool-calls.js";
