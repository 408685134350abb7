/**
 * Instructions of a landed transaction as the jsonParsed tests compare them, read back with
 * @solana/web3.js's getParsedTransaction: a parser's program, type and info, or the raw data of
 * an instruction shown partially decoded.
 */
import assert from "node:assert/strict";

import type { Connection, ParsedInstruction, PartiallyDecodedInstruction, PublicKey } from "@solana/web3.js";

export type Shown = { program: string; type: string; info: unknown } | { unparsed: string; data: string };

export function shown(instruction: ParsedInstruction | PartiallyDecodedInstruction): Shown {
  if ("parsed" in instruction) {
    const parsed = instruction.parsed as { type: string; info: unknown } | string;
    return typeof parsed === "string"
      ? { program: instruction.program, type: "memo", info: parsed }
      : { program: instruction.program, type: parsed.type, info: parsed.info };
  }
  return { unparsed: instruction.programId.toBase58(), data: instruction.data };
}

/** The top-level instructions of a landed transaction, and its inner ones, as shown. */
export async function readShown(
  connection: Connection,
  signature: string,
): Promise<{ top: Shown[]; inner: Shown[] }> {
  const transaction = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
  assert.ok(transaction, `transaction ${signature}`);
  return {
    top: transaction.transaction.message.instructions.map(shown),
    inner: (transaction.meta?.innerInstructions ?? []).flatMap((set) => set.instructions.map(shown)),
  };
}

/** The signature of the newest transaction that names `address`. */
export async function newestSignature(connection: Connection, address: PublicKey): Promise<string> {
  const [newest] = await connection.getSignaturesForAddress(address, { limit: 1 });
  assert.ok(newest);
  return newest.signature;
}
