/**
 * The SDK's `findAndVerifyAction` errors as the tool's failures: each says what was wrong and which
 * input or setting to change.
 */
import {
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_RUNTIME__BATCH_NOT_FOUND,
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
  ABAS_SDK__ATTESTATION_INDEX_REQUIRED,
  ABAS_SDK__CANNOT_CANONICALIZE,
  ABAS_SDK__INVALID_ACTION_HASH,
  ABAS_SDK__INVALID_ACTION_PAYLOAD,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__INVALID_SALT,
  ERROR_CODE_RANGES,
  isAbasError,
} from "@abas/errors";

import type { McpServerConfig } from "./config.js";
import { ToolFailure, fromApiError, invalidInput, ledgerFailure, missingApiKey } from "./tool-failure.js";

const ledgerSettings = (config: McpServerConfig): string =>
  `ABAS_RPC_URL=${config.shownRpcUrl}, ABAS_PROGRAM_ID=${config.programId}`;

export function fromLookupError(error: unknown, config: McpServerConfig): ToolFailure {
  if (error instanceof ToolFailure) return error;
  if (!isAbasError(error)) return ledgerFailure(config, "the ledger", error);
  const context = error.context as Record<string, unknown>;
  if (error.code >= ERROR_CODE_RANGES.ABAS_API.min && error.code <= ERROR_CODE_RANGES.ABAS_API.max) {
    return fromApiError(error, config);
  }
  switch (error.code) {
    case ABAS_SDK__ATTESTATION_INDEX_REQUIRED:
      return missingApiKey(
        config,
        "Finding who attested a hash without `agent`, `txSignature` or `batchAddress`",
      );
    case ABAS_RUNTIME__BATCH_NOT_FOUND:
      return new ToolFailure(
        "not_found",
        `The ledger has no ABAS batch attestation at batchAddress ${String(context.batchAddress)} (${ledgerSettings(config)}). ` +
          "Check the receipt's batchAddress, and that these settings name the ledger and program the batch was recorded with.",
      );
    case ABAS_RUNTIME__TRANSACTION_NOT_FOUND:
      return new ToolFailure(
        "not_found",
        `The ledger has no transaction ${String(context.signature)} (ABAS_RPC_URL=${config.shownRpcUrl}). Check the ` +
          "receipt's txSignature, and that ABAS_RPC_URL is the ledger it was sent to.",
      );
    case ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE:
      return invalidInput(
        "index",
        `must be below the batch's item count, ${String(context.itemCount)} (items are numbered from 0).`,
      );
    case ABAS_RUNTIME__RPC_REQUEST_FAILED:
      return ledgerFailure(config, String(context.method), error);
    case ABAS_SDK__CANNOT_CANONICALIZE:
      return invalidInput(
        "payload",
        `cannot be written as canonical JSON: ${String(context.reason)} at ${String(context.path)}.`,
      );
    case ABAS_SDK__INVALID_ACTION_PAYLOAD:
      return invalidInput("payload", `cannot be hashed: ${String(context.reason)}.`);
    case ABAS_SDK__INVALID_ACTION_HASH:
      return invalidInput(String(context.field), "must be 64 hexadecimal characters.");
    case ABAS_SDK__INVALID_SALT:
      return invalidInput(
        "salt",
        "must be 64 hexadecimal characters (the salt from the privacy-mode receipt).",
      );
    case ABAS_SDK__INVALID_ARGUMENT:
      return invalidInput(String(context.argument), `${String(context.reason)}.`);
    default:
      return new ToolFailure("ledger_error", `Verifying against the ledger failed: ${error.message}`);
  }
}
