/**
 * `verify_action_hash`: was this action attested, by which agent, when? Answered from the ledger
 * itself by the SDK's `findAndVerifyAction` (accounts and transactions read over JSON-RPC, each
 * attestation checked with `verifyReceipt`), with the REST API's index used only to find where to
 * look.
 */
import {
  findAndVerifyAction,
  getAddressExplorerUrl,
  getTransactionExplorerUrl,
  type ActionLookup,
  type ActionMatch,
  type HashSource,
  type LookupNote,
} from "@abas/sdk";
import { z } from "zod";

import { defineTool } from "../define-tool.js";
import { parseAddress, parseSignature } from "../parse-input.js";
import { fromLookupError } from "../lookup-failure.js";
import { ActionTypeName, BASE58_ADDRESS, BASE58_SIGNATURE, HEX_32_BYTES, hex32 } from "../schemas.js";
import type { ToolContext } from "../tool-context.js";
import { KEY_COMMAND, invalidInput } from "../tool-failure.js";

/** A canonical payload longer than this is not repeated in the answer. */
const MAX_PAYLOAD_ECHO = 10_000;

/**
 * A payload as sent: a string, an object or an array, passed on untouched. (A record schema would
 * rebuild an object and drop a `__proto__` member, so the hash would be of another object.)
 */
const payloadSchema = z
  .unknown()
  .refine(
    (value) => typeof value === "string" || (typeof value === "object" && value !== null),
    "expected a string, a JSON object or a JSON array",
  )
  .meta({ type: ["string", "object", "array"] });

/**
 * What a payload given as a JSON object or array is: the value the MCP message's JSON parser read,
 * which may say less than the text the host sent (a repeated key keeps its last value; digits past
 * a 64-bit float's precision are rounded), so two different texts can check as the same action.
 */
const OBJECT_PAYLOAD_NOTE =
  "The payload came as a JSON object or array, so it was hashed as this server's JSON parser read it from the MCP message: " +
  "a key the text repeats keeps its last value, and digits past a 64-bit float's precision are rounded. " +
  "To check an exact text, give the payload as a string: JSON that says more than its parsed value is then hashed only as written.";

const inputSchema = z.strictObject({
  actionHash: hex32(
    "The action hash to check: 64 hex characters, SHA-256 of the payload (the receipt's actionHash). Give this or payload.",
  ).optional(),
  payload: payloadSchema
    .optional()
    .describe(
      "Or the action itself, hashed here as the ABAS SDK's hashAction does (SHA-256 of the UTF-8 bytes). A string " +
        "is hashed exactly as given, and when it is JSON also as RFC 8785 canonical JSON. A JSON object or array is " +
        "first written as RFC 8785 canonical JSON (keys sorted, no whitespace), i.e. hashAction(canonicalize(x)); " +
        "if the agent hashed another serialization (such as JSON.stringify with its own key order), pass that " +
        "string instead.",
    ),
  salt: hex32(
    'For a privacy-mode attestation: the 32-byte salt from its receipt (64 hex). The ledger stores only the commitment SHA-256("abas:commit:v1" ‖ salt ‖ actionHash), so without the salt it cannot be found.',
    "the receipt's salt",
  ).optional(),
  agent: z
    .string()
    .regex(BASE58_ADDRESS, "expected the agent's public key: 32 to 44 base58 characters")
    .optional()
    .describe(
      "The agent expected to have attested it (base58 public key): its account is read from the ledger directly",
    ),
  txSignature: z
    .string()
    .regex(BASE58_SIGNATURE, "expected a transaction signature: 64 to 88 base58 characters")
    .optional()
    .describe(
      "The transaction that recorded it (the receipt's txSignature; for a batch item, the batch commit)",
    ),
  batchAddress: z
    .string()
    .regex(BASE58_ADDRESS, "expected the batch account address: 32 to 44 base58 characters")
    .optional()
    .describe("For a batch item: the batch attestation account (the receipt's batchAddress)"),
  index: z
    .number()
    .int()
    .min(0)
    .max(99)
    .optional()
    .describe("For a batch item: its position in the batch, from 0 (the receipt's index)"),
  proof: z
    .array(z.string().regex(HEX_32_BYTES, "expected 64 hexadecimal characters (a sibling hash)"))
    .max(7)
    .optional()
    .describe(
      "For a batch item: the receipt's Merkle inclusion proof (sibling hashes, hex, from the leaf up). Without it the " +
        "proof is rebuilt from the leaves the ledger stores",
    ),
});

const CheckResult = z.object({ ok: z.boolean(), reason: z.string().optional() });

const Attestation = z.object({
  verified: z.boolean().describe("Every check passed"),
  actionHash: z.string().describe("The action hash this attestation was checked against"),
  hashedFrom: z.enum(["actionHash", "payload string", "payload as RFC 8785 canonical JSON"]),
  kind: z.enum(["single", "batch-item"]),
  agent: z.string().describe("The agent's public key: its Ed25519 key signed the receipt"),
  operator: z.string().describe("The operator wallet that submitted it"),
  actionType: ActionTypeName,
  privacyMode: z.boolean(),
  slot: z.number().int().describe("The ledger slot it was recorded in"),
  timestamp: z.number().int().describe("The ledger's unix time when it was recorded"),
  recordedAt: z.string().describe("timestamp in ISO 8601 (UTC)"),
  accountAddress: z.string().describe("The attestation account (for a batch item: the batch account)"),
  accountExplorerUrl: z.string(),
  batch: z
    .object({
      index: z.number().int(),
      itemCount: z.number().int(),
      leavesPublished: z.number().int(),
      complete: z.boolean().describe("Every leaf is published, so the program checked them against the root"),
      merkleRoot: z.string().describe("The root the agent signed, as stored on the ledger"),
      leafHash: z.string(),
      proof: z.array(z.string()),
      proofSource: z.enum(["input", "ledger", "unavailable"]),
    })
    .nullable(),
  txSignature: z.string().nullable().describe("The transaction that recorded it"),
  explorerUrl: z.string().nullable().describe("That transaction in the Solana Explorer"),
  agentSignature: z.string().describe("The agent's Ed25519 signature (base58), as stored on the ledger"),
  checks: z
    .record(z.string(), CheckResult)
    .describe(
      "Each check and its result: format, storedHash, agentSignature, merkleProof, address, program, account, accountFields, batchLeaf, transaction",
    ),
  receipt: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      "The receipt rebuilt from the ledger, as the ABAS SDK's verifyReceipt and `abas verify` check it on their own",
    ),
});

const outputSchema = z.object({
  attested: z.boolean().describe("true when at least one attestation of this hash passed every check"),
  complete: z
    .boolean()
    .describe(
      'false when part of the search could not run (the notes say which): attested false then means "not found", not "never attested"',
    ),
  actionHash: z.string(),
  storedHash: z.string().describe("What the ledger stores: the action hash, or with a salt its commitment"),
  hashedFrom: z.enum(["actionHash", "payload string", "payload as RFC 8785 canonical JSON"]),
  canonicalPayload: z
    .string()
    .nullable()
    .describe(`The exact text hashed, for a JSON payload of at most ${MAX_PAYLOAD_ECHO} characters`),
  searchedBy: z
    .enum(["batchAddress", "txSignature", "agent", "index"])
    .describe("How the attestations were found: from the reference given, or through the ABAS index"),
  attestations: z.array(Attestation),
  notes: z.array(z.string()).describe("What was not found or not searched, and why"),
  ledger: z.object({ rpcUrl: z.string(), programId: z.string() }),
});

type Output = z.input<typeof outputSchema>;
type CheckedAttestation = z.input<typeof Attestation>;

/** The whole lookup may take this long before the ledger counts as not answering. */
const LOOKUP_TIMEOUT_MS = 30_000;

const HASHED_FROM: Record<HashSource, Output["hashedFrom"]> = {
  "action-hash": "actionHash",
  "payload-as-written": "payload string",
  "canonical-json": "payload as RFC 8785 canonical JSON",
};

const CHECK_DESCRIPTIONS: Record<string, string> = {
  storedHash: "the stored hash is the action hash (or its commitment under the salt)",
  agentSignature: "the agent's Ed25519 signature verifies over the exact signed message",
  merkleProof: "the inclusion proof links the item to the signed Merkle root",
  address: "the account is at the program address derived from agent and hash",
  program: "it is of the ABAS program this server follows",
  account: "the program's account exists on the ledger",
  accountFields: "the account's fields match",
  batchLeaf: "the batch is complete and stores this item at its index",
  transaction: "the recording transaction created the account and succeeded in that slot",
};

function renderAttestation(attestation: CheckedAttestation, answeredHash: string): string[] {
  const where =
    attestation.batch === null
      ? `attestation account ${attestation.accountAddress}`
      : `item ${attestation.batch.index + 1} of ${attestation.batch.itemCount} in batch ${attestation.accountAddress} ` +
        `(Merkle root ${attestation.batch.merkleRoot}, proof from ${attestation.batch.proofSource})`;
  const lines = [
    `${attestation.verified ? "VERIFIED" : "NOT VERIFIED"}: ${attestation.actionType}${attestation.privacyMode ? " (privacy mode)" : ""} ` +
      `attested by agent ${attestation.agent} (operator ${attestation.operator}) at ${attestation.recordedAt} ` +
      `(ledger time, slot ${attestation.slot}); ${where}.`,
    `  transaction ${attestation.txSignature ?? "not found"}${attestation.explorerUrl ? ` ${attestation.explorerUrl}` : ""}`,
    `  agent signature ${attestation.agentSignature}`,
  ];
  if (attestation.actionHash !== answeredHash) {
    lines.push(`  of action hash ${attestation.actionHash} (the ${attestation.hashedFrom})`);
  }
  const failed = Object.entries(attestation.checks).filter(([, check]) => !check.ok);
  if (failed.length === 0) {
    const passed = Object.keys(attestation.checks)
      .map((name) => CHECK_DESCRIPTIONS[name])
      .filter((text) => text !== undefined);
    lines.push(`  checked against the ledger: ${passed.join("; ")}.`);
  } else {
    for (const [name, check] of failed) lines.push(`  FAILED ${name}: ${check.reason ?? "failed"}`);
  }
  return lines;
}

function render(output: Output, checked: readonly CheckedAttestation[]): string {
  const hash = `${output.hashedFrom === "actionHash" ? "Action hash" : `Action hash (of the ${output.hashedFrom})`} ${output.actionHash}`;
  const stored =
    output.storedHash === output.actionHash ? "" : ` (stored as commitment ${output.storedHash})`;
  const ofHash = `${hash.charAt(0).toLowerCase()}${hash.slice(1)}${stored}`;
  const verdict = output.attested
    ? `ATTESTED. ${hash}${stored} is recorded on the ledger (${output.ledger.rpcUrl}).`
    : output.complete
      ? `NOT ATTESTED. No attestation of ${ofHash} passed the ledger checks.`
      : `NOT FOUND, SEARCH INCOMPLETE. No attestation of ${ofHash} that was checked passed the ledger checks, ` +
        "but part of the search could not run (see the notes): this does not show that it was never attested.";
  const lines = [
    verdict,
    ...checked.flatMap((attestation) => renderAttestation(attestation, output.actionHash)),
    ...output.notes.map((note) => `Note: ${note}`),
  ];
  if (!output.attested) {
    lines.push(
      "If it was attested in privacy mode, pass the receipt's salt. A JSON payload is hashed as RFC 8785 " +
        "canonical JSON; if the agent hashed another serialization, pass that exact string or the receipt's actionHash.",
    );
  }
  return lines.join("\n");
}

function checkInput(input: z.output<typeof inputSchema>): void {
  if ((input.actionHash === undefined) === (input.payload === undefined)) {
    throw invalidInput(
      "actionHash",
      "or `payload`: give exactly one of them: `actionHash` (64 hex characters, the receipt's actionHash) " +
        "or `payload` (the action itself, to be hashed).",
    );
  }
  if (input.agent !== undefined) parseAddress(input.agent, "agent");
  if (input.txSignature !== undefined) parseSignature(input.txSignature, "txSignature");
  if (input.batchAddress !== undefined)
    parseAddress(input.batchAddress, "batchAddress", "an account address");
}

function attestationOf(match: ActionMatch, context: ToolContext): CheckedAttestation {
  const rpcUrl = context.config.shownRpcUrl;
  const { batch } = match;
  const explorerUrl =
    match.txSignature === null ? null : getTransactionExplorerUrl(match.txSignature, rpcUrl);
  return {
    verified: match.verified,
    actionHash: match.hash.actionHash,
    hashedFrom: HASHED_FROM[match.hash.source],
    kind: match.kind === "attestation" ? "single" : "batch-item",
    agent: match.agent,
    operator: match.operator,
    actionType: match.actionType!,
    privacyMode: match.privacyMode,
    slot: match.slot,
    timestamp: match.timestamp,
    recordedAt: new Date(match.timestamp * 1000).toISOString(),
    accountAddress: match.address,
    accountExplorerUrl: getAddressExplorerUrl(match.address, rpcUrl),
    batch:
      batch === null
        ? null
        : {
            index: batch.index,
            itemCount: batch.itemCount,
            leavesPublished: batch.leavesPublished,
            complete: batch.complete,
            merkleRoot: batch.merkleRoot,
            leafHash: batch.leafHash ?? "",
            proof: [...batch.proof],
            proofSource:
              batch.proofSource === "query"
                ? "input"
                : batch.proofSource === "ledger-leaves"
                  ? "ledger"
                  : "unavailable",
          },
    txSignature: match.txSignature,
    explorerUrl,
    agentSignature: match.agentSignature,
    checks: Object.fromEntries(
      Object.entries(match.checks).map(([name, check]) => [
        name,
        check.reason === undefined ? { ok: check.ok } : { ok: check.ok, reason: check.reason },
      ]),
    ),
    receipt: match.receipt === null ? null : { ...match.receipt, explorerUrl: explorerUrl ?? "" },
  };
}

/** The notes, with the setting to change where the server's own settings are the reason. */
function notesOf(notes: readonly LookupNote[], context: ToolContext): string[] {
  return notes.map((entry) =>
    entry.kind === "batch-items-not-searched" && context.api === undefined
      ? "Batch items were not searched: they are found through the ABAS REST API, and ABAS_API_KEY is not set " +
        `(create a key with \`${KEY_COMMAND}\`). Or pass the receipt's batchAddress.`
      : entry.message,
  );
}

/** The hash the answer is about: the one an attestation verified under, else the first tried. */
function answeredHash(lookup: ActionLookup) {
  return (lookup.matches.find((match) => match.verified) ?? lookup.matches[0])?.hash ?? lookup.hashes[0]!;
}

async function verify(input: z.output<typeof inputSchema>, context: ToolContext, cancelled: AbortSignal) {
  checkInput(input);
  const { config } = context;
  let lookup: ActionLookup;
  try {
    lookup = await findAndVerifyAction(
      {
        ...(input.actionHash === undefined ? {} : { actionHash: input.actionHash }),
        ...(input.payload === undefined ? {} : { payload: input.payload }),
        ...(input.salt === undefined ? {} : { salt: input.salt }),
        ...(input.agent === undefined ? {} : { agent: input.agent }),
        ...(input.txSignature === undefined ? {} : { txSignature: input.txSignature }),
        ...(input.batchAddress === undefined ? {} : { batchAddress: input.batchAddress }),
        ...(input.index === undefined ? {} : { index: input.index }),
        ...(input.proof === undefined ? {} : { proof: input.proof }),
      },
      {
        rpcUrl: config.rpcUrl,
        programId: config.programId,
        ...(context.api === undefined ? {} : { index: context.api }),
        abortSignal: AbortSignal.any([cancelled, AbortSignal.timeout(LOOKUP_TIMEOUT_MS)]),
      },
    );
  } catch (error) {
    throw fromLookupError(error, config);
  }
  const hash = answeredHash(lookup);
  const checked = lookup.matches.map((match) => attestationOf(match, context));
  const notes = notesOf(lookup.notes, context);
  if (typeof input.payload === "object") notes.push(OBJECT_PAYLOAD_NOTE);
  const echoed = hash.canonicalPayload !== null && hash.canonicalPayload.length <= MAX_PAYLOAD_ECHO;
  if (hash.canonicalPayload !== null && !echoed) {
    notes.push(
      `The canonical payload hashed (${hash.canonicalPayload.length} characters) is not repeated here.`,
    );
  }
  const structured: Output = {
    attested: lookup.attested,
    complete: lookup.complete,
    actionHash: hash.actionHash,
    storedHash: hash.storedHash,
    hashedFrom: HASHED_FROM[hash.source],
    canonicalPayload: echoed ? hash.canonicalPayload : null,
    searchedBy: lookup.searchedBy,
    attestations: checked,
    notes,
    ledger: { rpcUrl: config.shownRpcUrl, programId: config.programId },
  };
  return { structured, text: render(structured, checked) };
}

export const verifyActionHash = defineTool({
  name: "verify_action_hash",
  title: "Verify an action against the ledger",
  description:
    "Check whether an AI agent's action was attested with ABAS, and by whom and when, against the Solana ledger " +
    "itself rather than anyone's logs. Give the action as `actionHash` (64 hex, SHA-256) or as `payload`: a string " +
    "is hashed exactly as given (and, when it is JSON, also as RFC 8785 canonical JSON); a JSON object or array is first canonicalized with RFC 8785 (JSON Canonicalization " +
    "Scheme), then hashed with SHA-256, as the ABAS SDK's hashAction(canonicalize(x)) does. For a privacy-mode " +
    "receipt also give its `salt`. Optionally narrow with `agent`, `txSignature`, or for a batch item `batchAddress` " +
    "(+ `index`, `proof`); without any, candidates are found through the ABAS index. Each candidate is read from the " +
    "ledger and checked: the stored hash (or salted commitment), the agent's Ed25519 signature over the exact signed " +
    "message, for a batch item the Merkle inclusion proof against the on-chain root and that the batch is complete, " +
    "the account's address and fields, and the recording transaction. Answers attested true/false with the agent, " +
    "operator, ledger time and slot, and the evidence (account address, transaction signature, agent signature, " +
    "Explorer link).",
  inputSchema,
  outputSchema,
  handler: verify,
});
