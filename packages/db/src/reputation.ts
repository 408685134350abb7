/**
 * Reputation v1: a score from 0 to 100 computed only from ledger facts about one agent and a
 * reference time (the newest ledger timestamp the database holds, never the wall clock), so the
 * API, the MCP server and the web app give the same inputs the same score. docs/api.md gives the
 * formula with worked examples; any change to it is a new version.
 */
import type { ApiAgent, ApiReputation } from "@abas/api-contract";

export const REPUTATION_FORMULA_VERSION = "1";

/** How much each component counts; they sum to 1. */
export const REPUTATION_WEIGHTS = {
  tenure: 0.25,
  volume: 0.3,
  regularity: 0.2,
  compliance: 0.25,
} as const;

export const REPUTATION_PARAMETERS = {
  /** Days since registration at which tenure is full. */
  fullTenureDays: 180,
  /** Attestations at which volume is full (log-scaled below it). */
  fullVolumeAttestations: 10_000,
  /** The window, in days up to the reference time, over which regularity counts active days. */
  regularityWindowDays: 30,
  /** The highest score a suspended agent can have; a revoked agent scores 0. */
  suspendedCap: 40,
} as const;

const SECONDS_PER_DAY = 86_400;

export type AgentStatusName = ApiAgent["status"];

export interface ReputationInputs {
  readonly status: AgentStatusName;
  /** Ledger unix seconds of the agent's registration. */
  readonly registeredAt: number;
  /** Attestations recorded for the agent: singles plus verified batch items. */
  readonly attestationCount: number;
  /** Days, among the `regularityWindowDays` days up to the reference time, with an attestation. */
  readonly activeDaysInWindow: number;
  /** Attempts the program refused for policy or status reasons. */
  readonly policyViolations: number;
  /** Ledger unix seconds the score is computed at. */
  readonly referenceTime: number;
}

/** Each 0..1. */
export type ReputationComponents = ApiReputation["components"];

function clamp01(value: number): number {
  return Math.min(1, Math.max(0, value));
}

export function computeReputationComponents(inputs: ReputationInputs): ReputationComponents {
  const { fullTenureDays, fullVolumeAttestations, regularityWindowDays } = REPUTATION_PARAMETERS;
  const ageDays = (inputs.referenceTime - inputs.registeredAt) / SECONDS_PER_DAY;
  const attempts = inputs.attestationCount + inputs.policyViolations;
  return {
    tenure: clamp01(ageDays / fullTenureDays),
    // log10(1 + n): the first attestations count most, the ten-thousandth barely.
    volume: clamp01(Math.log10(1 + inputs.attestationCount) / Math.log10(1 + fullVolumeAttestations)),
    regularity: clamp01(inputs.activeDaysInWindow / regularityWindowDays),
    // No attempts, no evidence of compliance: an idle agent earns nothing here.
    compliance: attempts === 0 ? 0 : clamp01(inputs.attestationCount / attempts),
  };
}

function statusCap(status: AgentStatusName): number | null {
  if (status === "revoked") return 0;
  if (status === "suspended") return REPUTATION_PARAMETERS.suspendedCap;
  return null;
}

function round4(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

export function computeReputation(inputs: ReputationInputs): ApiReputation {
  const components = computeReputationComponents(inputs);
  const weighted =
    REPUTATION_WEIGHTS.tenure * components.tenure +
    REPUTATION_WEIGHTS.volume * components.volume +
    REPUTATION_WEIGHTS.regularity * components.regularity +
    REPUTATION_WEIGHTS.compliance * components.compliance;
  const uncappedScore = Math.round(100 * weighted);
  const cap = statusCap(inputs.status);
  return {
    score: cap === null ? uncappedScore : Math.min(uncappedScore, cap),
    version: REPUTATION_FORMULA_VERSION,
    referenceTime: inputs.referenceTime,
    components: {
      tenure: round4(components.tenure),
      volume: round4(components.volume),
      regularity: round4(components.regularity),
      compliance: round4(components.compliance),
    },
    weights: REPUTATION_WEIGHTS,
    uncappedScore,
    cap,
  };
}
