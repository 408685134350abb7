/** `abas batch <file.jsonl>`: many actions, up to 100 per signed Merkle root. */

import type { BatchAttestationResult, BatchItemReceipt } from "@abas/sdk";

import { parseBatchFile, type BatchFileItem } from "../batch-file.js";
import { printResult, type CommandContext } from "../cli-io.js";
import { createClient, keypairPath, loadKeypairOption } from "../clients.js";
import { GLOBAL_OPTIONS_HELP, parseOptions, requireOption, resolveGlobalSettings } from "../parse-options.js";
import { createProgress } from "../progress.js";
import { NewReceiptsFile, readTextFile } from "../receipt-files.js";
import { CommandFailure, UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

export const MAX_BATCH_SIZE = 100;

const USAGE = `Usage: abas batch --operator <keypair> --agent <keypair> --receipts-out <file.jsonl> <file.jsonl>

Attests every line of a JSONL file, up to ${MAX_BATCH_SIZE} actions per batch (one transaction for the
signed Merkle root, then the leaves). Each line is one action:
  {"actionType":"ToolCall","payload":"..."}            a string payload is hashed as it is
  {"actionType":"Decision","payload":{"a":1}}          any other JSON value: its RFC 8785 canonical form
  {"actionType":"ToolCall","actionHash":"<64 hex>","privacyMode":true}
Every line is checked before anything is sent; a bad line is reported with its number.

  --receipts-out <file>  where to write the receipts, one JSON per line, in the file's order
                         (never overwrites; privacy-mode receipts carry their salt)

${GLOBAL_OPTIONS_HELP}`;

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

async function run(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    operator: { type: "string" },
    agent: { type: "string" },
    "receipts-out": { type: "string" },
  });
  const settings = resolveGlobalSettings(values, env);
  if (positionals.length !== 1) throw new UsageError("batch needs exactly one JSONL file");
  const file = positionals[0]!;
  const operatorPath = keypairPath(requireOption(values.operator, "--operator", "keypair"), "--operator");
  const agentPath = keypairPath(requireOption(values.agent, "--agent", "keypair"), "--agent");
  const receiptsOut = requireOption(values["receipts-out"], "--receipts-out", "file.jsonl");
  const items = await parseBatchFile(readTextFile(file, "batch file"), file);

  const client = createClient(settings, await loadKeypairOption(agentPath, "--agent"));
  const operatorKeypair = await loadKeypairOption(operatorPath, "--operator");
  const receiptsFile = NewReceiptsFile.create(receiptsOut, "--receipts-out");
  const batches = chunk<BatchFileItem>(items, MAX_BATCH_SIZE);
  const progress = createProgress(io, "batch", items.length + batches.length);
  const results: BatchAttestationResult[] = [];
  let done = 0;
  try {
    for (const [batchIndex, batch] of batches.entries()) {
      const name = `batch ${batchIndex + 1}/${batches.length}`;
      let leavesDone = 0;
      const result = await client.batchAttest({
        operatorKeypair,
        attestations: batch.map(({ actionType, actionHash, privacyMode }) => ({
          actionType,
          actionHash,
          privacyMode,
        })),
        onProgress: (report) => {
          if (report.stage === "root-recorded") {
            done += 1;
            progress.update(done, `${name}: root recorded`);
          } else {
            done += report.leavesPublished - leavesDone;
            leavesDone = report.leavesPublished;
            progress.update(done, `${name}: ${leavesDone}/${report.itemCount} leaves published`);
          }
        },
      });
      results.push(result);
      // Written after each batch, so the receipts of finished batches survive a later failure.
      const lines = result.receipts.map((receipt) => `${JSON.stringify(receipt)}\n`).join("");
      const notSaved = receiptsFile.append(lines);
      if (notSaved !== undefined) {
        // These actions are on the ledger: their receipts must not be lost.
        if (!settings.json) io.out(lines.trimEnd());
        throw new CommandFailure(
          `${name} is attested (transaction ${result.txSignature}), but its receipts were not saved: ${notSaved}. ` +
            `They are printed ${settings.json ? "in this error's details" : "above"}, one per line: keep them.`,
          { receipts: result.receipts },
        );
      }
    }
  } catch (error) {
    receiptsFile.removeIfEmpty();
    if (results.length > 0 && !(error instanceof CommandFailure)) {
      const attested = results.reduce((sum, result) => sum + result.itemCount, 0);
      io.err(
        `abas batch: batches 1 to ${results.length} (lines 1 to ${attested} of ${file}) are attested, their ` +
          `receipts in ${receiptsFile.path}; the rest was not: attest lines ${attested + 1} on in a new file.`,
      );
    }
    throw error;
  } finally {
    progress.stop();
  }

  const receipts: BatchItemReceipt[] = results.flatMap((result) => result.receipts);
  const summary = {
    itemCount: items.length,
    receiptsFile: receiptsFile.path,
    privateReceipts: receipts.filter((receipt) => receipt.privacyMode).length,
    batches: results.map(({ receipts: _receipts, ...batch }) => batch),
  };
  const text = [
    `Attested ${items.length} actions in ${results.length} batch${results.length === 1 ? "" : "es"}`,
    ...results.map(
      (result, index) =>
        `  batch ${index + 1}: ${result.itemCount} items, root ${result.merkleRoot}\n` +
        `           transaction ${result.txSignature}, ${result.leafTransactions.length} leaf transactions`,
    ),
    `Receipts written to ${summary.receiptsFile}`,
    ...(summary.privateReceipts > 0
      ? [
          `${summary.privateReceipts} privacy-mode receipts carry their salt: keep the file as private as the payloads.`,
        ]
      : []),
  ].join("\n");
  printResult(io, settings.json, summary, text);
  return 0;
}

export const batchCommand: Command = {
  usage: USAGE,
  run,
};
