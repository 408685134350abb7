/** `get_agent_reputation`: an agent's reputation score, its components, inputs and formula version. */
import { z } from "zod";

import { defineTool } from "../define-tool.js";
import { parseAddress } from "../parse-input.js";
import { AgentProfile, Reputation, agentKey, isoTime } from "../schemas.js";
import { fromApiError } from "../tool-failure.js";

/** docs/api.md, "Reputation score v1". */
const FORMULA_V1 =
  "score = round(100 × (0.25·tenure + 0.30·volume + 0.20·regularity + 0.25·compliance)); " +
  "tenure = min(1, days registered / 180); volume = min(1, log10(1 + n) / log10(10001)) for n attestations; " +
  "regularity = active days among the last 30 / 30; compliance = n / (n + refused attempts), 0 with no attempts; " +
  "a suspended agent is capped at 40, a revoked one scores 0. Computed only from ledger facts, at the " +
  "newest ledger time the index holds.";

const inputSchema = z.strictObject({
  agent: agentKey("The agent's public key (base58)"),
});

const outputSchema = Reputation.extend({
  agent: z.string(),
  status: AgentProfile.shape.status,
  computedAt: z.string().describe("The reference time, ISO 8601: the newest ledger time in the index"),
  inputs: z.object({
    registeredAt: z.string().describe("Ledger time of registration, ISO 8601"),
    attestations: z.number().int().describe("n: singles plus verified batch items"),
    activeDaysLast30: z.number().int(),
    policyViolations: z.number().int().describe("Attempts the program refused for policy or status"),
  }),
  formula: z.string().describe("The formula of this version, in words"),
});

export const getAgentReputation = defineTool({
  name: "get_agent_reputation",
  title: "Agent reputation score",
  description:
    "The reputation score (0-100) of an AI agent that records its actions with ABAS, with its four " +
    "components (tenure, volume, regularity, compliance, each 0-1), their weights, the status cap, the " +
    "inputs it was computed from and the formula version. The score is deterministic and computed only " +
    "from ledger facts, so every ABAS service gives the same score for the same ledger.",
  inputSchema,
  outputSchema,
  async handler({ agent }, context) {
    parseAddress(agent, "agent");
    const api = context.requireApi("Reading an agent's reputation");
    const profile = await api.getAgent(agent).catch((error: unknown) => {
      throw fromApiError(error, context.config, { agent, field: { id: "agent" } });
    });
    const { reputation, metrics } = profile;
    const structured: z.input<typeof outputSchema> = {
      agent: profile.agent,
      status: profile.status,
      ...reputation,
      computedAt: isoTime(reputation.referenceTime),
      inputs: {
        registeredAt: isoTime(profile.registeredAt),
        attestations: metrics.attestations.total,
        activeDaysLast30: metrics.recent.activeDaysLast30,
        policyViolations: metrics.policyViolations,
      },
      formula:
        reputation.version === "1"
          ? FORMULA_V1
          : `Formula version ${reputation.version}: see the ABAS API documentation.`,
    };
    const c = reputation.components;
    const w = reputation.weights;
    const text = [
      `Agent ${profile.agent}: reputation ${reputation.score}/100 (formula v${reputation.version}), status ${profile.status}` +
        (reputation.cap === null
          ? "."
          : `, capped at ${reputation.cap} (${reputation.uncappedScore} before the cap).`),
      `Components (0-1, weight): tenure ${c.tenure} (${w.tenure}), volume ${c.volume} (${w.volume}), ` +
        `regularity ${c.regularity} (${w.regularity}), compliance ${c.compliance} (${w.compliance}).`,
      `From: registered ${structured.inputs.registeredAt}, ${metrics.attestations.total} attestations, ` +
        `${metrics.recent.activeDaysLast30} active days in the last 30, ${metrics.policyViolations} refused attempts; ` +
        `computed at ledger time ${structured.computedAt}.`,
    ].join("\n");
    return { structured, text };
  },
});
