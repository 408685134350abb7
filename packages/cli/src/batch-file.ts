/**
 * The JSONL file of `abas batch`: one action per line, all checked (and hashed) before anything is
 * sent, so a bad line costs nothing. Blank lines are skipped; line numbers count them.
 */
import { AttestationClient } from "@abas/sdk";

import { isActionTypeName, ACTION_TYPE_NAMES, type ActionTypeName } from "./action-types.js";
import { UsageError } from "./usage-error.js";

export type BatchFileItem = Readonly<{
  line: number;
  actionType: ActionTypeName;
  actionHash: string;
  privacyMode: boolean;
}>;

const HASH_PATTERN = /^[0-9a-fA-F]{64}$/;
const KNOWN_FIELDS = new Set(["actionType", "payload", "actionHash", "privacyMode"]);

function lineError(file: string, line: number, problem: string): UsageError {
  return new UsageError(`${file}:${line}: ${problem}; nothing was sent`, { showUsage: false });
}

async function parseLine(text: string, file: string, line: number): Promise<BatchFileItem> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw lineError(file, line, `not JSON (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw lineError(file, line, 'expected an object such as {"actionType":"ToolCall","payload":"..."}');
  }
  const item = value as Record<string, unknown>;
  const unknown = Object.keys(item).find((key) => !KNOWN_FIELDS.has(key));
  if (unknown !== undefined) throw lineError(file, line, `unknown field "${unknown}"`);
  if (!isActionTypeName(item.actionType)) {
    throw lineError(
      file,
      line,
      `actionType must be one of ${ACTION_TYPE_NAMES.join(", ")}, got ${JSON.stringify(item.actionType)}`,
    );
  }
  if (item.privacyMode !== undefined && typeof item.privacyMode !== "boolean") {
    throw lineError(file, line, "privacyMode must be true or false");
  }
  const hasPayload = "payload" in item;
  const hasHash = "actionHash" in item;
  if (hasPayload === hasHash) throw lineError(file, line, "give exactly one of payload and actionHash");
  let actionHash: string;
  if (hasHash) {
    if (typeof item.actionHash !== "string" || !HASH_PATTERN.test(item.actionHash)) {
      throw lineError(file, line, "actionHash must be 64 hex characters (a SHA-256)");
    }
    actionHash = item.actionHash.toLowerCase();
  } else {
    // A string is hashed as it is; any other JSON value in its RFC 8785 canonical form.
    let payload: string;
    try {
      payload =
        typeof item.payload === "string" ? item.payload : AttestationClient.canonicalize(item.payload);
    } catch (error) {
      throw lineError(file, line, `payload cannot be hashed: ${(error as Error).message}`);
    }
    actionHash = await AttestationClient.hashAction(payload);
  }
  return { line, actionType: item.actionType, actionHash, privacyMode: item.privacyMode === true };
}

export async function parseBatchFile(text: string, file: string): Promise<BatchFileItem[]> {
  const items: BatchFileItem[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    if (raw.trim() === "") continue;
    items.push(await parseLine(raw, file, index + 1));
  }
  if (items.length === 0) throw new UsageError(`${file} holds no actions (one JSON object per line)`);
  return items;
}
