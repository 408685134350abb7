/**
 * The receipts page's two questions about one file of a receipts folder (`abas-mcp-proxy
 * --receipts-dir`), answered by the same functions as `abas receipts list|verify`: what does it
 * record (`parseReceiptFile`, `summarizeReceiptFile`), and does it verify against the ledger
 * (`verifyReceiptFile`: the call hashes to the attested action, and the SDK's `verifyReceipt`
 * passes). The browser sends the file's text; nothing is kept.
 */
import {
  AbasError,
  ABAS_SDK__RECEIPT_CALL_MISMATCH,
  ABAS_SDK__RECEIPT_FILE_UNREADABLE,
  ABAS_SDK__RECEIPT_VERIFICATION_FAILED,
  getAbasErrorCodeName,
  isAbasError,
} from "@abas/errors";
import {
  parseReceiptFile,
  summarizeReceiptFile,
  verifyReceiptFile,
  type ReceiptFileSummary,
} from "@abas/mcp-proxy";

import { DEFAULT_LEDGER_TIMEOUT_MS, type LedgerContext } from "./verify-record.js";

/** A named error, as `abas receipts verify --json` reports it. */
export interface ReceiptFileProblem {
  readonly code: number;
  readonly codeName: string;
  readonly message: string;
}

export type ReadReceiptFileAnswer =
  { readonly receipt: ReceiptFileSummary } | { readonly error: ReceiptFileProblem };

export type VerifyReceiptFileAnswer =
  | { readonly status: "verified" }
  | { readonly status: "failed"; readonly error: ReceiptFileProblem }
  | { readonly status: "unavailable"; readonly message: string };

/** What a receipt file can be found to be, rather than the ledger failing to answer. */
const RECEIPT_FILE_FAULTS: readonly number[] = [
  ABAS_SDK__RECEIPT_FILE_UNREADABLE,
  ABAS_SDK__RECEIPT_CALL_MISMATCH,
  ABAS_SDK__RECEIPT_VERIFICATION_FAILED,
];

function receiptFileProblem(error: unknown): ReceiptFileProblem | undefined {
  if (!isAbasError(error) || !RECEIPT_FILE_FAULTS.includes(error.context.__code)) return undefined;
  const code = error.context.__code;
  return { code, codeName: getAbasErrorCodeName(code), message: error.message };
}

export function readReceiptFileText(file: string, text: string): ReadReceiptFileAnswer {
  try {
    return { receipt: summarizeReceiptFile(parseReceiptFile(text, file)) };
  } catch (error) {
    const problem = receiptFileProblem(error);
    if (problem === undefined) throw error;
    return { error: problem };
  }
}

/** What the page says of a file larger than a receipt file can be, without sending it. */
export function receiptFileTooLarge(maxBytes: number): ReceiptFileProblem {
  const error = new AbasError(ABAS_SDK__RECEIPT_FILE_UNREADABLE, {
    file: "(too large)",
    reason: `it is larger than ${maxBytes / 1024 / 1024} MB, more than a receipt file holds`,
  });
  return receiptFileProblem(error)!;
}

class LedgerTimeout extends Error {
  override readonly name = "LedgerTimeout";
}

/** Never throws for the file or the ledger: a ledger that does not answer is "unavailable". */
export async function verifyReceiptFileText(
  file: string,
  text: string,
  ledger: LedgerContext,
): Promise<VerifyReceiptFileAnswer> {
  const timeoutMs = ledger.timeoutMs ?? DEFAULT_LEDGER_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  try {
    const entry = parseReceiptFile(text, file);
    await Promise.race([
      verifyReceiptFile(entry, { rpcUrl: ledger.rpcUrl, programId: ledger.programId }),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () => reject(new LedgerTimeout(`no answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
      }),
    ]);
    return { status: "verified" };
  } catch (error) {
    const problem = receiptFileProblem(error);
    if (problem !== undefined) return { status: "failed", error: problem };
    const reason = error instanceof Error ? error.message : String(error);
    return {
      status: "unavailable",
      message: `The ledger could not be checked: ${reason}. Try again shortly.`,
    };
  } finally {
    clearTimeout(timer);
  }
}
