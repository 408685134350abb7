/** `get_agent_attestations`: one agent's receipts, newest first, with its reputation score. */
import { getTransactionExplorerUrl, type ApiAttestation } from "@abas/sdk";
import { z } from "zod";

import { defineTool } from "../define-tool.js";
import { parseAddress } from "../parse-input.js";
import {
  ActionTypeName,
  AgentProfile,
  AttestationItem,
  AttestationPage,
  Reputation,
  agentKey,
  isoTime,
  timeBound,
} from "../schemas.js";
import { fromApiError } from "../tool-failure.js";

const inputSchema = z.strictObject({
  agent: agentKey("The agent's public key (base58), as registered with the ABAS program"),
  actionType: ActionTypeName.optional().describe("Only this kind of action"),
  privacy: z
    .boolean()
    .optional()
    .describe("true: only privacy-mode attestations (salted commitments); false: only plain ones"),
  since: timeBound("Only attestations recorded at or after this ledger time").optional(),
  until: timeBound("Only attestations recorded before this ledger time (exclusive)").optional(),
  limit: z.number().int().min(1).max(100).default(20).describe("Page size, 1 to 100 (default 20)"),
  cursor: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .describe("`pagination.nextCursor` of the previous answer, for the next page"),
});

const outputSchema = z.object({
  agent: z.string(),
  operator: z.string().describe("The wallet that registered the agent and submits its attestations"),
  status: AgentProfile.shape.status,
  allowedActionTypes: z.array(ActionTypeName),
  registeredAt: z.string().describe("Ledger time of registration, ISO 8601"),
  totals: z.object({
    attestations: z.number().int().describe("Singles plus verified batch items"),
    single: z.number().int(),
    batchItems: z.number().int(),
    privacyShare: z.number().describe("Share of privacy-mode attestations, 0 to 1"),
    policyViolations: z.number().int().describe("Attempts the program refused for policy or status"),
    lastSeenAt: z.string().nullable(),
  }),
  reputation: Reputation,
  attestations: z.array(AttestationItem).describe("Newest first"),
  pagination: AttestationPage.shape.pagination,
});

function toItem(record: ApiAttestation, rpcUrl: string): z.input<typeof AttestationItem> {
  return {
    id: record.id,
    kind: record.kind,
    actionType: record.actionType,
    privacy: record.privacy,
    storedHash: record.storedHash,
    agentSignature: record.agentSignature,
    txSignature: record.txSignature,
    slot: record.slot,
    timestamp: record.timestamp,
    recordedAt: isoTime(record.timestamp),
    batch: record.batch,
    explorerUrl: getTransactionExplorerUrl(record.txSignature, rpcUrl),
  };
}

function renderItem(item: z.input<typeof AttestationItem>): string {
  const where = item.batch
    ? `batch item ${item.batch.index + 1} of ${item.batch.address}`
    : `attestation ${item.id}`;
  const hash = item.privacy ? `commitment ${item.storedHash}` : `action hash ${item.storedHash}`;
  return `- ${item.recordedAt} (slot ${item.slot}) ${item.actionType}: ${where}; ${hash}; tx ${item.txSignature}`;
}

export const getAgentAttestations = defineTool({
  name: "get_agent_attestations",
  title: "Agent attestations and reputation",
  description:
    "List the receipts (attestations) an AI agent recorded on the Solana ledger through ABAS, newest " +
    "first, with the agent's status and reputation score (0-100) and its components. Each receipt binds " +
    "the hash of one action (Transaction, ToolCall, Decision or ModelInvocation) to the agent's Ed25519 " +
    "signature and the ledger's timestamp; privacy-mode receipts show only a salted commitment. Filter " +
    "by actionType, privacy and a ledger time range (since inclusive, until exclusive; unix seconds or " +
    "ISO 8601); page with limit and cursor. Data comes from the ABAS index of the ledger; use " +
    "verify_action_hash to check one action against the ledger itself.",
  inputSchema,
  outputSchema,
  async handler(input, context) {
    parseAddress(input.agent, "agent");
    const api = context.requireApi("Listing an agent's attestations");
    const { agent, limit, cursor, actionType, privacy, since, until } = input;
    const fields = { agent: "agent", since: "since", until: "until", cursor: "cursor", limit: "limit" };
    const [profile, page] = await Promise.all([
      api.getAgent(agent),
      api.listAttestations({ agent, limit, cursor, actionType, privacy, since, until }),
    ]).catch((error: unknown) => {
      throw fromApiError(error, context.config, { agent, field: fields });
    });

    const { metrics, reputation } = profile;
    const attestations = page.data.map((record) => toItem(record, context.config.shownRpcUrl));
    const structured: z.input<typeof outputSchema> = {
      agent: profile.agent,
      operator: profile.operator,
      status: profile.status,
      allowedActionTypes: profile.policy.allowedActionTypes,
      registeredAt: isoTime(profile.registeredAt),
      totals: {
        attestations: metrics.attestations.total,
        single: metrics.attestations.single,
        batchItems: metrics.attestations.batchItems,
        privacyShare: metrics.privacy.share,
        policyViolations: metrics.policyViolations,
        lastSeenAt: metrics.lastSeenAt === null ? null : isoTime(metrics.lastSeenAt),
      },
      reputation,
      attestations,
      pagination: page.pagination,
    };

    const c = reputation.components;
    const lines = [
      `Agent ${profile.agent} (operator ${profile.operator}), status ${profile.status}, registered ${structured.registeredAt}.`,
      `Reputation ${reputation.score}/100 (formula v${reputation.version}): tenure ${c.tenure}, volume ${c.volume}, ` +
        `regularity ${c.regularity}, compliance ${c.compliance}${reputation.cap === null ? "" : `; capped at ${reputation.cap} by status`}.`,
      `${metrics.attestations.total} attestations in total (${metrics.attestations.single} single, ` +
        `${metrics.attestations.batchItems} batch items), ${metrics.policyViolations} refused attempts.`,
      attestations.length > 0
        ? `${attestations.length} shown, newest first:`
        : page.pagination.hasMore
          ? "None of the attestations this page examined match these filters (a page examines at most 5,000)."
          : "No attestations match these filters.",
      ...attestations.map(renderItem),
    ];
    if (page.pagination.hasMore) {
      lines.push(`More: call again with cursor "${page.pagination.nextCursor}" and the same filters.`);
    }
    return { structured, text: lines.join("\n") };
  },
});
