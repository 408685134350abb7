/** `abas verify <receipt.json | receipts.jsonl | ->` and `abas verify --hash <hex> --agent <address>`. */
import { existsSync, statSync } from "node:fs";

import { verifyReceipt, type ReceiptVerification } from "@abas/sdk";

import { printResult, type CommandContext } from "../cli-io.js";
import { createReadOnlyClient, loadKeypairOption, parseAddressReference, trustedLedger } from "../clients.js";
import { GLOBAL_OPTIONS_HELP, parseOptions, requireOption, resolveGlobalSettings } from "../parse-options.js";
import { readTextFile } from "../receipt-files.js";
import { UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage:
  abas verify <receipt.json | receipts.jsonl | ->
  abas verify --hash <64 hex> --agent <address|keypair> [--salt <64 hex>]

The first form checks receipts offline (hashes, the agent's signature, the Merkle proof, addresses)
and against the ledger (the account, its fields, the transaction); exit code 1 when one fails.
The second looks an action hash up on the ledger as a single attestation (batches are not
searched: check a batch item with its receipt); a privacy-mode attestation needs its salt.

${GLOBAL_OPTIONS_HELP}`;

const HEX_64 = /^[0-9a-fA-F]{64}$/;

/** One receipt (a JSON document) or many (JSON lines, as `abas batch` writes them). */
function parseReceipts(text: string, source: string): unknown[] {
  try {
    return [JSON.parse(text)];
  } catch {
    const receipts: unknown[] = [];
    for (const [index, line] of text.split(/\r?\n/).entries()) {
      if (line.trim() === "") continue;
      try {
        receipts.push(JSON.parse(line));
      } catch (error) {
        throw new UsageError(`${source}:${index + 1}: not a JSON receipt (${(error as Error).message})`, {
          showUsage: false,
        });
      }
    }
    if (receipts.length === 0) throw new UsageError(`${source} holds no receipt`, { showUsage: false });
    return receipts;
  }
}

/** `{ call, receipt }`: a file of a receipts folder (abas-mcp-proxy, writeReceiptFile), not a bare receipt. */
function isReceiptFile(value: unknown): boolean {
  return typeof value === "object" && value !== null && "call" in value && "receipt" in value;
}

function formatVerification(verification: ReceiptVerification, label: string): string {
  const lines = [
    `${label}: ${verification.valid ? "VALID" : "INVALID"} (${verification.kind ?? "unknown kind"})`,
  ];
  for (const [name, check] of Object.entries(verification.checks)) {
    lines.push(
      `  ${check.ok ? "ok  " : "FAIL"} ${name}${check.reason === undefined ? "" : `: ${check.reason}`}`,
    );
  }
  return lines.join("\n");
}

async function verifyReceipts(
  path: string,
  context: CommandContext,
  values: Parameters<typeof resolveGlobalSettings>[0],
) {
  const settings = resolveGlobalSettings(values, context.env);
  const source = path === "-" ? "stdin" : path;
  if (path !== "-" && existsSync(path) && statSync(path).isDirectory()) {
    throw new UsageError(
      `${path} is a folder; a receipts folder is verified with: abas receipts verify ${path}`,
    );
  }
  const receipts = parseReceipts(readTextFile(path, "receipt"), source);
  if (receipts.some(isReceiptFile)) {
    throw new UsageError(
      `${source} holds a tool call with its receipt (a receipts folder's file); it is verified, call included, with: abas receipts verify <its folder>`,
    );
  }
  const results: ReceiptVerification[] = [];
  for (const receipt of receipts) results.push(await verifyReceipt(receipt, trustedLedger(settings)));
  const valid = results.every((result) => result.valid);
  const failed = results.flatMap((result, index) =>
    Object.entries(result.checks)
      .filter(([, check]) => !check.ok)
      .map(([name, check]) => ({ receipt: index, check: name, reason: check.reason ?? null })),
  );
  const label = (index: number) => (results.length === 1 ? "receipt" : `receipt ${index + 1}`);
  const text =
    results.map((result, index) => formatVerification(result, label(index))).join("\n") +
    (results.length > 1
      ? `\n${results.filter((result) => result.valid).length}/${results.length} valid`
      : "");
  if (settings.json) {
    printResult(
      context.io,
      true,
      results.length === 1 ? { ...results[0], failed } : { valid, failed, results },
      "",
    );
  } else if (valid) {
    context.io.out(text);
  } else {
    // The checks go to stdout either way; the verdict also to stderr, for scripts that only show errors.
    context.io.out(text);
    context.io.err(
      `abas verify: ${failed.length} check${failed.length === 1 ? "" : "s"} failed: ` +
        failed
          .map((entry) =>
            results.length === 1 ? entry.check : `${entry.check} (receipt ${entry.receipt + 1})`,
          )
          .join(", "),
    );
  }
  return valid ? 0 : 1;
}

async function findByHash(
  values: { hash?: string; salt?: string; agent?: string } & Parameters<typeof resolveGlobalSettings>[0],
  context: CommandContext,
): Promise<number> {
  const settings = resolveGlobalSettings(values, context.env);
  const hash = requireOption(values.hash, "--hash", "64 hex");
  if (!HEX_64.test(hash)) throw new UsageError(`--hash must be 64 hex characters (a SHA-256), got "${hash}"`);
  if (values.salt !== undefined && !HEX_64.test(values.salt)) {
    throw new UsageError("--salt must be 64 hex characters (the salt of the privacy-mode receipt)");
  }
  const agentValue = requireOption(values.agent, "--agent", "address|keypair");
  const agentRef = parseAddressReference(agentValue, "--agent", "agent");
  const agent =
    "address" in agentRef ? agentRef.address : (await loadKeypairOption(agentRef.path, "--agent")).address;
  const reader = await createReadOnlyClient(settings);
  const found = await reader.findAttestation({
    actionHash: hash.toLowerCase(),
    agent,
    ...(values.salt === undefined ? {} : { salt: values.salt.toLowerCase() }),
  });
  if (settings.json) {
    printResult(context.io, true, { found: found !== null, attestation: found }, "");
  } else if (found === null) {
    context.io.err(
      `abas verify: no single attestation of ${hash} by agent ${agent}` +
        (values.salt === undefined ? " (a privacy-mode attestation is found only with its --salt)" : "") +
        "; batches are not searched: check a batch item with its receipt",
    );
  } else {
    context.io.out(
      [
        `FOUND: ${found.actionType} attested by agent ${found.agent}${found.privacyMode ? " (privacy mode)" : ""}`,
        `  attestation  ${found.address}`,
        `  operator     ${found.operator}`,
        `  stored hash  ${found.storedHash}`,
        `  recorded     slot ${found.slot}, ${new Date(found.timestamp * 1000).toISOString()}`,
      ].join("\n"),
    );
  }
  return found === null ? 1 : 0;
}

async function run(args: readonly string[], context: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    hash: { type: "string" },
    salt: { type: "string" },
    agent: { type: "string" },
  });
  if (values.hash !== undefined || values.salt !== undefined || values.agent !== undefined) {
    if (positionals.length > 0) throw new UsageError("give either a receipt file or --hash, not both");
    return await findByHash(values, context);
  }
  if (positionals.length !== 1)
    throw new UsageError("verify needs a receipt file (or - for stdin), or --hash <hex>");
  return await verifyReceipts(positionals[0]!, context, values);
}

export const verifyCommand: Command = {
  usage: USAGE,
  run,
};
