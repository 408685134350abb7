/**
 * The action hashes a query may stand for, each once, in the order they are tried: the action hash
 * given; a payload string hashed exactly as written and, when it is JSON, as RFC 8785 canonical
 * JSON (what `hashAction(canonicalize(x))` gives, whatever spacing or key order was pasted); a
 * payload object or array as canonical JSON only. With a salt, each is paired with the commitment
 * the ledger stores instead. JSON that says more than its parsed value (a repeated key, a number
 * beyond a double) is not tried as canonical JSON: that hash is also another text's, which says
 * something else (`jsonAmbiguity`); a note says so.
 */
import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import { bytesToHex, computeCommitment } from "@abas/program-client";

import { canonicalize } from "../canonicalize.js";
import { hashAction } from "../hash-action.js";
import { parseHash, parseSalt } from "../input-validation.js";
import { jsonAmbiguity } from "../json-ambiguity.js";
import { note, type LookupNote } from "./lookup-notes.js";

export type HashSource = "action-hash" | "payload-as-written" | "canonical-json";

export type HashToTry = Readonly<{
  source: HashSource;
  actionHash: string;
  /** What the ledger stores: the action hash, or with a salt its commitment. */
  storedHash: string;
  /** The exact text hashed, for canonical JSON; null otherwise. */
  canonicalPayload: string | null;
}>;

export type ActionToHash = Readonly<{
  actionHash?: string;
  payload?: string | object;
  salt?: string;
}>;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

async function actionHashesOf(
  action: ActionToHash,
  notes: LookupNote[],
): Promise<Omit<HashToTry, "storedHash">[]> {
  const hashes: Omit<HashToTry, "storedHash">[] = [];
  const add = (source: HashSource, actionHash: string, canonicalPayload: string | null = null) => {
    if (!hashes.some((entry) => entry.actionHash === actionHash)) {
      hashes.push({ source, actionHash, canonicalPayload });
    }
  };
  if (action.actionHash !== undefined) {
    add("action-hash", bytesToHex(parseHash(action.actionHash, "actionHash")));
  }
  const { payload } = action;
  if (typeof payload === "string") {
    add("payload-as-written", await hashAction(payload));
    const parsed = parseJson(payload);
    const ambiguity = parsed === undefined ? undefined : jsonAmbiguity(payload);
    if (ambiguity !== undefined) {
      notes.push(
        note(
          "payload-json-ambiguous",
          `The payload is JSON that says more than its parsed value (${ambiguity}), so it was hashed as written only: as canonical JSON it would match another text that says something else.`,
        ),
      );
    } else if (parsed !== undefined) {
      try {
        const text = canonicalize(parsed);
        add("canonical-json", await hashAction(text), text);
      } catch {
        // JSON that canonical JSON cannot carry (a lone surrogate): only the text as written.
      }
    }
  } else if (payload !== undefined) {
    const text = canonicalize(payload);
    add("canonical-json", await hashAction(text), text);
  }
  return hashes;
}

/** The hashes to try, and what was not tried and why. */
export async function hashesToTry(
  action: ActionToHash,
): Promise<{ hashes: HashToTry[]; notes: LookupNote[] }> {
  if (action.actionHash === undefined && action.payload === undefined) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: "actionHash | payload",
      reason: "give the action hash, or the payload to hash",
    });
  }
  const salt = action.salt === undefined ? undefined : parseSalt(action.salt);
  const notes: LookupNote[] = [];
  const hashes = (await actionHashesOf(action, notes)).map((hash) => ({
    ...hash,
    storedHash:
      salt === undefined
        ? hash.actionHash
        : bytesToHex(computeCommitment(salt, parseHash(hash.actionHash, "actionHash"))),
  }));
  return { hashes, notes };
}
