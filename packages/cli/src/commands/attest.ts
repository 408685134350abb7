/** `abas attest`: one action, one transaction, one receipt. */
import { AttestationClient, type AttestationReceipt } from "@abas/sdk";

import { parseActionType } from "../action-types.js";
import { printResult, type CommandContext } from "../cli-io.js";
import { createClient, keypairPath, loadKeypairOption } from "../clients.js";
import {
  assertNoPositionals,
  GLOBAL_OPTIONS_HELP,
  parseOptions,
  requireOption,
  resolveGlobalSettings,
} from "../parse-options.js";
import { NewReceiptsFile, readTextFile } from "../receipt-files.js";
import { CommandFailure, UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage: abas attest --operator <keypair> --agent <keypair> --type <action type>
                   (--payload <string> | --payload-file <path> | --hash <64 hex>)
                   [--private] [--canonical] [--receipt-out <file>]

  --type <type>          Transaction, ToolCall, Decision or ModelInvocation
  --payload <string>     the action; its SHA-256 is attested (the payload itself never leaves this machine)
  --payload-file <path>  the action, read from a file ("-" for stdin)
  --hash <hex>           the action's SHA-256, already computed (64 hex characters)
  --canonical            the payload is JSON: hash its RFC 8785 canonical form, so key order and
                         whitespace do not change the hash
  --private              privacy mode: the ledger stores a salted commitment; the receipt carries
                         the salt, so keep it as private as the payload
  --receipt-out <file>   also save the receipt there (never overwrites)

${GLOBAL_OPTIONS_HELP}`;

const HASH_PATTERN = /^[0-9a-fA-F]{64}$/;

/** The action hash from exactly one of --payload, --payload-file and --hash. */
export async function actionHashOf(values: {
  payload?: string | undefined;
  "payload-file"?: string | undefined;
  hash?: string | undefined;
  canonical?: boolean | undefined;
}): Promise<string> {
  const given = (["payload", "payload-file", "hash"] as const).filter((name) => values[name] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      given.length === 0
        ? "missing the action: give --payload <string>, --payload-file <path> or --hash <64 hex>"
        : `give only one of --payload, --payload-file and --hash (got --${given.join(" and --")})`,
    );
  }
  if (values.hash !== undefined) {
    if (!HASH_PATTERN.test(values.hash)) {
      throw new UsageError(
        `--hash must be 64 hex characters (a SHA-256), got ${values.hash.length} characters "${values.hash.slice(0, 70)}"`,
      );
    }
    if (values.canonical === true) throw new UsageError("--canonical applies to a payload, not to --hash");
    return values.hash.toLowerCase();
  }
  let payload = values.payload ?? readTextFile(values["payload-file"]!, "payload file");
  if (values.canonical === true) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(payload);
    } catch (error) {
      throw new UsageError(`--canonical needs a JSON payload: ${(error as Error).message}`);
    }
    payload = AttestationClient.canonicalize(parsed);
  }
  return await AttestationClient.hashAction(payload);
}

function formatReceipt(receipt: AttestationReceipt, savedTo: string | undefined): string {
  const lines = [
    `Attested ${receipt.actionType} ${receipt.actionHash}${receipt.privacyMode ? " (privacy mode)" : ""}`,
    `  agent        ${receipt.agent}`,
    `  attestation  ${receipt.attestationAddress}`,
    `  transaction  ${receipt.txSignature} (slot ${receipt.slot}, ${new Date(receipt.timestamp * 1000).toISOString()})`,
    `  explorer     ${receipt.explorerUrl}`,
  ];
  if (savedTo !== undefined) lines.push(`  receipt      ${savedTo}`);
  if (receipt.salt !== undefined) {
    lines.push(
      `  salt         ${receipt.salt}`,
      "",
      "This is a privacy-mode receipt: it carries the salt, the only link between the action and what",
      "the ledger stores. Keep the receipt as private as the payload.",
    );
  }
  if (savedTo === undefined) lines.push("", "Receipt:", JSON.stringify(receipt, null, 2));
  return lines.join("\n");
}

async function run(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    operator: { type: "string" },
    agent: { type: "string" },
    type: { type: "string" },
    payload: { type: "string" },
    "payload-file": { type: "string" },
    hash: { type: "string" },
    private: { type: "boolean", default: false },
    canonical: { type: "boolean", default: false },
    "receipt-out": { type: "string" },
  });
  assertNoPositionals(positionals);
  const settings = resolveGlobalSettings(values, env);
  const operatorPath = keypairPath(requireOption(values.operator, "--operator", "keypair"), "--operator");
  const agentPath = keypairPath(requireOption(values.agent, "--agent", "keypair"), "--agent");
  const actionType = parseActionType(requireOption(values.type, "--type", "action type"));
  const actionHash = await actionHashOf(values);
  const client = createClient(settings, await loadKeypairOption(agentPath, "--agent"));
  const operatorKeypair = await loadKeypairOption(operatorPath, "--operator");
  const receiptOut = values["receipt-out"];
  const file = receiptOut === undefined ? undefined : NewReceiptsFile.create(receiptOut, "--receipt-out");
  let receipt: AttestationReceipt;
  try {
    receipt = await client.attest({ operatorKeypair, actionHash, actionType, privacyMode: values.private });
  } catch (error) {
    file?.removeIfEmpty();
    throw error;
  }
  const notSaved = file?.append(`${JSON.stringify(receipt, null, 2)}\n`);
  if (notSaved !== undefined) {
    // The action is on the ledger: its receipt (with a private action's salt) must not be lost.
    if (!settings.json) io.out(formatReceipt(receipt, undefined));
    throw new CommandFailure(
      `the action is attested (transaction ${receipt.txSignature}), but its receipt was not saved: ${notSaved}. ` +
        `The receipt is printed ${settings.json ? "in this error's details" : "above"}: keep it.`,
      { receipt },
    );
  }
  printResult(io, settings.json, receipt, formatReceipt(receipt, file?.path));
  return 0;
}

export const attestCommand: Command = {
  usage: USAGE,
  run,
};
