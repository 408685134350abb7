/**
 * `abas receipts list|verify|show`: the receipts folder that `abas-mcp-proxy` writes, one
 * `<action hash>.json` file per tools/call (the call and its receipt).
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";

import {
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  getAbasErrorCodeName,
  isAbasError,
  type AbasError,
} from "@abas/errors";
import {
  actionOfReceiptFile,
  outcomeOfReceiptFile,
  readReceiptsFolder,
  summarizeReceiptFile,
  verifyReceiptFile,
  type ReceiptFileEntry,
  type ReceiptsFolder,
} from "@abas/mcp-proxy";
import type { BatchRecord, VerifyReceiptOptions } from "@abas/sdk";

import { printResult, type CommandContext } from "../cli-io.js";
import { createReadOnlyClient, trustedLedger } from "../clients.js";
import { GLOBAL_OPTIONS_HELP, parseOptions, resolveGlobalSettings } from "../parse-options.js";
import { createProgress } from "../progress.js";
import { ledgerHint, shownLedger } from "../report-error.js";
import { table } from "../text-table.js";
import { UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage:
  abas receipts list <folder> [--agent <address>]
  abas receipts verify <folder> [--agent <address>]
  abas receipts show <folder/<action hash>.json | merkle root --agent <address>>

  list     the receipts of a receipts folder (abas-mcp-proxy --receipts-dir), oldest first
  verify   checks each one: its call hashes to the attested action, and the receipt verifies
           against the ledger; exit code 1 when any fails, with each failure's error code
  show     a batch on the ledger with its items, from one of its receipts (its file, or the
           start of its action hash as list shows it: folder/f806b4350e33f175) or its Merkle root
  --agent  list, verify: only this agent's receipts; show: the agent of the batch

${GLOBAL_OPTIONS_HELP}`;

const HEX_64 = /^[0-9a-fA-F]{64}$/;

type Values = Parameters<typeof resolveGlobalSettings>[0] & { agent?: string };

/** A receipts folder's receipts (of `--agent` only, when given) and the files that are not receipts. */
function readFolder(positionals: readonly string[], values: Values, subcommand: string): ReceiptsFolder {
  if (positionals.length !== 1) throw new UsageError(`receipts ${subcommand} needs one receipts folder`);
  const { receipts, unreadable } = readReceiptsFolder(positionals[0]!);
  return {
    receipts:
      values.agent === undefined
        ? receipts
        : receipts.filter((entry) => entry.receipt.agent === values.agent),
    unreadable,
  };
}

/** A named error as `--json` reports it, with the file it is about. */
function problem(file: string, error: AbasError) {
  const code = error.context.__code;
  return { file, code, codeName: getAbasErrorCodeName(code), message: error.message };
}

async function list(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { agent: { type: "string" } });
  const settings = resolveGlobalSettings(values, context.env);
  const folder = readFolder(positionals, values, "list");
  const receipts = folder.receipts.map(summarizeReceiptFile);
  const unreadable = folder.unreadable.map(({ file, error }) => problem(file, error));
  const text =
    receipts.length === 0
      ? "no receipts"
      : table([
          ["RECORDED", "ACTION", "OUTCOME", "ITEM", "PRIVACY", "ACTION HASH", "BATCH"],
          ...receipts.map((row) => [
            row.recordedAt,
            row.action ?? "(call not kept)",
            row.outcome,
            `${row.index + 1}/${row.itemCount}`,
            row.privacyMode ? "yes" : "no",
            `${row.actionHash.slice(0, 16)}…`,
            row.batchAddress,
          ]),
        ]) + `\n${receipts.length} receipt${receipts.length === 1 ? "" : "s"}`;
  printResult(context.io, settings.json, { receipts, unreadable }, text);
  if (!settings.json) {
    for (const { file, codeName, code, message } of unreadable) {
      context.io.err(`NOT A RECEIPT ${file} [${codeName} ${code}]: ${message}`);
    }
  }
  return 0;
}

async function verify(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { agent: { type: "string" } });
  const settings = resolveGlobalSettings(values, context.env);
  const { receipts, unreadable } = readFolder(positionals, values, "verify");
  // The files that are not receipts count as checked (and failed) before the first receipt.
  const checked = receipts.length + unreadable.length;
  const progress = createProgress(context.io, "verifying", checked, !settings.json);
  const failures: Array<ReturnType<typeof problem> & { action: string | null; tool: string | null }> =
    unreadable.map(({ file, error }) => ({ ...problem(file, error), action: null, tool: null }));
  for (const [done, entry] of receipts.entries()) {
    try {
      await verifyReceiptFile(entry, trustedLedger(settings));
    } catch (error) {
      if (!isAbasError(error)) throw error;
      const { action, tool } = summarizeReceiptFile(entry);
      failures.push({ ...problem(entry.file, error), action, tool });
    }
    progress.update(unreadable.length + done + 1, `${failures.length} failed`);
  }
  progress.stop();
  // Nothing checked is no proof of anything: a wrong folder (or --agent) must not pass.
  const valid = checked > 0 && failures.length === 0;
  // A receipt whose call was not kept proves an action was attested, not which call it was.
  const failed = new Set(failures.map((failure) => failure.file));
  const withoutCall = receipts
    .filter((entry) => entry.call === null && !failed.has(entry.file))
    .map((entry) => entry.file);
  if (settings.json) {
    printResult(context.io, true, { valid, checked, failures, withoutCall }, "");
  } else {
    context.io.out(`${checked - failures.length}/${checked} receipts valid`);
    for (const failure of failures) {
      context.io.err(`FAIL ${failure.file} [${failure.codeName} ${failure.code}]: ${failure.message}`);
    }
    if (checked === 0) {
      context.io.err(
        `abas receipts: no receipt files in ${positionals[0]}${values.agent === undefined ? "" : ` of agent ${values.agent}`}, so nothing is verified`,
      );
    }
    for (const file of withoutCall) {
      context.io.err(`NO CALL ${file}: the call was not kept, so only its receipt is verified`);
    }
    if (failures.some((failure) => failure.code === ABAS_RUNTIME__RPC_REQUEST_FAILED)) {
      context.io.err(`  fix: ${ledgerHint(settings)}`);
    }
  }
  return valid ? 0 : 1;
}

/** How many batch items `show` checks against the ledger at once (a public node limits its callers). */
const ITEMS_CHECKED_AT_ONCE = 4;

/**
 * What the LOCAL RECEIPT column says of each batch item a receipt file of the folder names: its
 * action and outcome once a file verifies against the ledger (its call hashes to its action, which
 * is that item); otherwise that the file does not verify, or could not be checked (the ledger did
 * not answer), with the code `abas receipts verify` gives. The files that name one item are checked
 * one after another until one verifies; a few items are checked at a time.
 */
async function localReceipts(
  batch: BatchRecord,
  entries: readonly ReceiptFileEntry[],
  ledger: VerifyReceiptOptions,
): Promise<Map<number, string>> {
  const byItem = new Map<number, ReceiptFileEntry[]>();
  for (const entry of entries) {
    if (entry.receipt.batchAddress !== batch.address) continue;
    byItem.set(entry.receipt.index, [...(byItem.get(entry.receipt.index) ?? []), entry]);
  }
  const labelOf = async (files: readonly ReceiptFileEntry[]): Promise<string> => {
    let failure = "";
    for (const entry of files) {
      try {
        await verifyReceiptFile(entry, ledger);
        return `${actionOfReceiptFile(entry) ?? "(call not kept)"} ${outcomeOfReceiptFile(entry)}`;
      } catch (error) {
        if (!isAbasError(error)) throw error;
        const verdict = error.code === ABAS_RUNTIME__RPC_REQUEST_FAILED ? "NOT CHECKED" : "NOT VERIFIED";
        failure ||= `${verdict} (${getAbasErrorCodeName(error.code)}): ${basename(entry.file)}`;
      }
    }
    return failure;
  };
  const items = [...byItem];
  const labels = new Map<number, string>();
  let next = 0;
  const checker = async (): Promise<void> => {
    while (next < items.length) {
      const [index, files] = items[next++]!;
      labels.set(index, await labelOf(files));
    }
  };
  await Promise.all(Array.from({ length: Math.min(ITEMS_CHECKED_AT_ONCE, items.length) }, checker));
  return labels;
}

function formatBatch(batch: BatchRecord, local: ReadonlyMap<number, string>): string {
  const lines = [
    `batch        ${batch.address}`,
    `agent        ${batch.agent}`,
    `operator     ${batch.operator}`,
    `merkle root  ${batch.merkleRoot}`,
    `items        ${batch.itemCount} (${batch.leavesPublished} published, ${batch.isComplete ? "complete" : "INCOMPLETE"})`,
    `recorded     slot ${batch.slot}, ${new Date(batch.timestamp * 1000).toISOString()}`,
  ];
  if (batch.leaves !== undefined && batch.leaves.length > 0) {
    lines.push(
      "",
      table([
        ["#", "TYPE", "PRIVACY", "STORED HASH", "LOCAL RECEIPT"],
        ...batch.leaves.map((leaf, index) => [
          String(index + 1),
          leaf.actionType,
          leaf.privacyMode ? "yes" : "no",
          leaf.storedHash,
          local.get(index) ?? "",
        ]),
      ]),
    );
  }
  return lines.join("\n");
}

async function show(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { agent: { type: "string" } });
  const settings = resolveGlobalSettings(values, context.env);
  if (positionals.length !== 1) throw new UsageError("receipts show needs a receipt file or a Merkle root");
  const target = positionals[0]!;
  let merkleRoot: string;
  let agent: string | undefined;
  let entries: ReceiptFileEntry[] = [];
  if (HEX_64.test(target)) {
    merkleRoot = target.toLowerCase();
    agent = values.agent;
    if (agent === undefined) throw new UsageError("receipts show <merkle root> needs --agent <address>");
  } else {
    if (existsSync(target) && statSync(target).isDirectory()) {
      throw new UsageError(
        `${target} is a folder: give one of its receipt files (abas receipts list ${target} names them), or a Merkle root with --agent`,
      );
    }
    const folder = dirname(target);
    // The file's name, or the start of it as list shows it (the action hash cut short with "…").
    const name = basename(target).replace(/…$/, "");
    const isTarget = (candidate: { file: string }): boolean => basename(candidate.file) === name;
    const read = readReceiptsFolder(folder);
    const damaged = read.unreadable.find(isTarget);
    if (damaged !== undefined) throw damaged.error;
    entries = read.receipts;
    let entry = entries.find(isTarget);
    if (entry === undefined && !existsSync(target)) {
      const starting = entries.filter((candidate) => basename(candidate.file).startsWith(name));
      if (starting.length > 1) {
        const names = starting.map((candidate) => basename(candidate.file));
        throw new UsageError(
          `${starting.length} receipt files in ${folder} start with ${name}: give more of the name, e.g. ${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}`,
        );
      }
      entry = starting[0];
    }
    if (entry === undefined) {
      throw new UsageError(
        existsSync(target)
          ? `${target} is not a receipt file (<action hash>.json, as abas-mcp-proxy writes them)`
          : `there is no file ${target}: give a receipt file of a folder (<folder>/<action hash>.json, or <folder>/ and the start of the action hash as abas receipts list shows it), or a batch's Merkle root with --agent`,
      );
    }
    ({ merkleRoot, agent } = entry.receipt);
  }
  const reader = await createReadOnlyClient(settings);
  const batch = await reader.findBatch({ merkleRoot, ...(agent === undefined ? {} : { agent }) });
  if (batch === null) {
    if (settings.json) printResult(context.io, true, { found: false, batch: null }, "");
    else
      context.io.err(
        `abas receipts: no batch with Merkle root ${merkleRoot} on the ledger at ${shownLedger(settings)}`,
      );
    return 1;
  }
  const text = settings.json
    ? ""
    : formatBatch(batch, await localReceipts(batch, entries, trustedLedger(settings)));
  printResult(context.io, settings.json, { found: true, batch }, text);
  return 0;
}

const SUBCOMMANDS: Record<string, (args: readonly string[], context: CommandContext) => Promise<number>> = {
  list,
  verify,
  show,
};

async function run(args: readonly string[], context: CommandContext): Promise<number> {
  const [subcommand, ...rest] = args;
  if (args.includes("--help") || args.includes("-h")) {
    context.io.out(USAGE);
    return 0;
  }
  const handler = subcommand === undefined ? undefined : SUBCOMMANDS[subcommand];
  if (handler === undefined) throw new UsageError("receipts needs a subcommand: list, verify or show");
  return await handler(rest, context);
}

export const receiptsCommand: Command = {
  usage: USAGE,
  run,
};
