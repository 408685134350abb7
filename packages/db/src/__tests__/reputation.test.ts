import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { computeReputation, REPUTATION_FORMULA_VERSION, REPUTATION_WEIGHTS } from "../reputation.js";

const DAY = 86_400;
const REFERENCE_TIME = 1_765_000_000;

function inputs(overrides: Partial<Parameters<typeof computeReputation>[0]> = {}) {
  return {
    status: "active" as const,
    registeredAt: REFERENCE_TIME - 365 * DAY,
    attestationCount: 5000,
    activeDaysInWindow: 25,
    policyViolations: 0,
    referenceTime: REFERENCE_TIME,
    ...overrides,
  };
}

describe("reputation v1", () => {
  it("weighs its components to a total of 1", () => {
    const total = Object.values(REPUTATION_WEIGHTS).reduce((sum, weight) => sum + weight, 0);
    assert.equal(Math.round(total * 1e9) / 1e9, 1);
  });

  it("worked example 1: an established, regular, compliant agent scores 94", () => {
    // Given an agent registered a year ago, 5,000 attestations, active 25 of the last 30 days
    const reputation = computeReputation(inputs());
    // Then tenure is full, volume log10(5001)/log10(10001), regularity 25/30, compliance 1
    assert.deepEqual(reputation.components, { tenure: 1, volume: 0.9248, regularity: 0.8333, compliance: 1 });
    // 0.25*1 + 0.30*0.924753 + 0.20*0.833333 + 0.25*1 = 0.944093 -> 94
    assert.equal(reputation.score, 94);
    assert.equal(reputation.uncappedScore, 94);
    assert.equal(reputation.cap, null);
    assert.equal(reputation.version, REPUTATION_FORMULA_VERSION);
    assert.equal(reputation.referenceTime, REFERENCE_TIME);
  });

  it("worked example 2: a younger agent with refused attempts scores 54", () => {
    // Given 90 days of tenure, 100 attestations, 10 active days, 25 refused attempts
    const reputation = computeReputation(
      inputs({
        registeredAt: REFERENCE_TIME - 90 * DAY,
        attestationCount: 100,
        activeDaysInWindow: 10,
        policyViolations: 25,
      }),
    );
    // Then tenure 90/180, volume log10(101)/log10(10001), regularity 10/30, compliance 100/125
    assert.deepEqual(reputation.components, {
      tenure: 0.5,
      volume: 0.5011,
      regularity: 0.3333,
      compliance: 0.8,
    });
    // 0.125 + 0.150322 + 0.066667 + 0.2 = 0.541989 -> 54
    assert.equal(reputation.score, 54);
  });

  it("worked example 3: a newly registered agent that never attested scores 0", () => {
    const reputation = computeReputation(
      inputs({ registeredAt: REFERENCE_TIME, attestationCount: 0, activeDaysInWindow: 0 }),
    );
    assert.deepEqual(reputation.components, { tenure: 0, volume: 0, regularity: 0, compliance: 0 });
    assert.equal(reputation.score, 0);
  });

  it("worked example 4: an agent registered an hour ago with its first attestation scores 28", () => {
    // 0.25*(1/24/180) + 0.30*log10(2)/log10(10001) + 0.20*(1/30) + 0.25*1 = 0.279302 -> 28
    const reputation = computeReputation(
      inputs({ registeredAt: REFERENCE_TIME - 3600, attestationCount: 1, activeDaysInWindow: 1 }),
    );
    assert.equal(reputation.components.volume, 0.0753);
    assert.equal(reputation.score, 28);
  });

  it("caps a suspended agent at 40", () => {
    const reputation = computeReputation(inputs({ status: "suspended" }));
    assert.equal(reputation.uncappedScore, 94);
    assert.equal(reputation.cap, 40);
    assert.equal(reputation.score, 40);
  });

  it("leaves a suspended agent below the cap unchanged", () => {
    const reputation = computeReputation(
      inputs({
        status: "suspended",
        registeredAt: REFERENCE_TIME - 90 * DAY,
        attestationCount: 100,
        activeDaysInWindow: 10,
        policyViolations: 25,
      }),
    );
    assert.equal(reputation.score, 40);
    const low = computeReputation(
      inputs({ status: "suspended", attestationCount: 0, activeDaysInWindow: 0 }),
    );
    assert.equal(low.score, 25);
  });

  it("gives a revoked agent 0 whatever its history", () => {
    const reputation = computeReputation(inputs({ status: "revoked" }));
    assert.equal(reputation.score, 0);
    assert.equal(reputation.cap, 0);
    assert.equal(reputation.uncappedScore, 94);
  });

  it("keeps every component within 0..1 for out-of-range inputs", () => {
    // Given more than full volume, more active days than the window, a registration after the reference time
    const reputation = computeReputation(
      inputs({ attestationCount: 10_000_000, activeDaysInWindow: 45, registeredAt: REFERENCE_TIME + DAY }),
    );
    assert.deepEqual(reputation.components, { tenure: 0, volume: 1, regularity: 1, compliance: 1 });
    assert.equal(reputation.score, 75);
  });

  it("is a pure function of its inputs: the same inputs give the same score", () => {
    assert.deepEqual(computeReputation(inputs()), computeReputation(inputs()));
  });
});
