/**
 * The `memo` field of getSignaturesForAddress: the text of the transaction's SPL Memo
 * instructions, formatted as a validator does (`[length] text`, joined by "; ").
 */
import type { WireTransaction } from "./wire-transaction.js";

const MEMO_PROGRAMS = new Set([
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
]);

const decoder = new TextDecoder("utf-8", { fatal: false });

export function extractMemo(
  transaction: Pick<WireTransaction, "staticAccountKeys" | "instructions">,
): string | null {
  const memos = transaction.instructions
    .filter((instruction) =>
      MEMO_PROGRAMS.has(transaction.staticAccountKeys[instruction.programIdIndex] ?? ""),
    )
    .map((instruction) => `[${instruction.data.length}] ${decoder.decode(instruction.data)}`);
  return memos.length === 0 ? null : memos.join("; ");
}
