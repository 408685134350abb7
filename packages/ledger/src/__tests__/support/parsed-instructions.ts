/**
 * Instructions of a landed transaction as the jsonParsed tests compare them, read back with
 * @solana/web3.js's getParsedTransaction: a parser's program, type and info, or the raw data of
 * an instruction shown partially decoded; and transactions landed without a preflight.
 */
import assert from "node:assert/strict";

import type {
  Connection,
  Keypair,
  ParsedInstruction,
  PartiallyDecodedInstruction,
  PublicKey,
  Transaction,
  TransactionError,
} from "@solana/web3.js";

import { sleep } from "./ledger-under-test.js";

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

/**
 * Sends `transaction`, signed by `payer`, without a preflight, so that one the program refuses
 * lands failed too, as it would on a cluster; waits until it has a status.
 */
export async function landWithoutPreflight(
  connection: Connection,
  payer: Keypair,
  transaction: Transaction,
): Promise<{ signature: string; err: TransactionError | null }> {
  transaction.recentBlockhash = (await connection.getLatestBlockhash()).blockhash;
  transaction.feePayer = payer.publicKey;
  transaction.sign(payer);
  const signature = await connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true });
  return { signature, err: await landedError(connection, signature) };
}

/** Waits until the transaction `signature` has a status; its error, or null when it succeeded. */
export async function landedError(
  connection: Connection,
  signature: string,
): Promise<TransactionError | null> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const status = (await connection.getSignatureStatus(signature)).value;
    if (status !== null) return status.err;
    await sleep(50);
  }
  throw new Error(`${signature} did not land`);
}
