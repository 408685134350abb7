import { ACTION_TYPE_NAMES, type ApiAgent, type ApiAttestationPage } from "@abas/api-contract";
import { getAddressExplorerUrl } from "@abas/sdk";

import { actionTypeTag, attestationRows, attestationTable, timeTag } from "../html/components.js";
import { formatCount, formatPercent } from "../html/format.js";
import { html, type SafeHtml } from "../html/html.js";

const COMPONENT_NOTES = {
  tenure: "time since registration, full after 180 days",
  volume: "attestations, log-scaled, full at 10,000",
  regularity: "days with an attestation among the last 30",
  compliance: "attestations / (attestations + refused attempts)",
} as const;

function stat(value: string | number, label: string): SafeHtml {
  return html`<div class="stat">
    <b>${typeof value === "number" ? formatCount(value) : value}</b><span>${label}</span>
  </div>`;
}

function reputationCard(profile: ApiAgent): SafeHtml {
  const { reputation } = profile;
  const components = Object.entries(reputation.components) as [keyof typeof COMPONENT_NOTES, number][];
  return html`<section class="card" aria-labelledby="reputation">
    <h2 id="reputation">Reputation</h2>
    <div class="score">
      <b data-score>${reputation.score}</b><span class="muted">/ 100 · formula v${reputation.version}</span>
    </div>
    ${
      reputation.cap === null
        ? null
        : html`<p class="notice">
            Capped at ${reputation.cap} by the agent's status (${profile.status}); uncapped
            ${reputation.uncappedScore}.
          </p>`
    }
    <div class="bars">
      ${components.map(
        ([name, value]) =>
          html`<div>
            <div class="bar-label">
              <span><b>${name}</b> <span class="muted">· ${COMPONENT_NOTES[name]}</span></span>
              <span class="mono nowrap">${value.toFixed(2)} × ${reputation.weights[name]}</span>
            </div>
            <svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true">
              <rect class="bar-track" width="100" height="8" />
              <rect class="bar-fill" width="${Math.round(value * 1000) / 10}" height="8" />
            </svg>
          </div>`,
      )}
    </div>
    <p class="muted last">
      Computed from ledger facts only, at the newest ledger time indexed
      (${timeTag(reputation.referenceTime)}).
    </p>
  </section>`;
}

function identityCard(profile: ApiAgent, rpcUrl: string): SafeHtml {
  return html`<section class="card" aria-labelledby="identity">
    <h2 id="identity">Registration and policy</h2>
    <dl class="facts">
      <dt>Status</dt>
      <dd><span class="tag status-${profile.status}">${profile.status}</span></dd>
      <dt>Allowed actions</dt>
      <dd>
        ${ACTION_TYPE_NAMES.map((type) => [actionTypeTag(type, profile.policy.allowedActionTypes.includes(type)), " "])}
      </dd>
      <dt>Operator</dt>
      <dd class="mono break">${profile.operator}</dd>
      <dt>Agent account</dt>
      <dd class="mono break">
        <a href="${getAddressExplorerUrl(profile.address, rpcUrl)}">${profile.address} ↗</a>
      </dd>
      <dt>Registered</dt>
      <dd>
        ${timeTag(profile.registeredAt)}
        <span class="muted">(slot ${formatCount(profile.registeredSlot)})</span>
      </dd>
      <dt>Last change</dt>
      <dd>${timeTag(profile.updatedAt)}</dd>
    </dl>
  </section>`;
}

function activityCard(profile: ApiAgent): SafeHtml {
  const { metrics } = profile;
  const byType = metrics.attestations.byActionType;
  return html`<section class="card" aria-labelledby="activity">
    <h2 id="activity">Activity</h2>
    <h3>Totals</h3>
    <div class="stats">
      ${stat(metrics.attestations.total, "attestations")} ${stat(metrics.attestations.single, "single")}
      ${stat(metrics.attestations.batchItems, "batch items")}
      ${stat(metrics.ledgerCounters.batches, "batches")} ${stat(metrics.policyViolations, "refused attempts")}
    </div>
    <h3>Recent</h3>
    <div class="stats">
      ${stat(metrics.recent.last24h, "last 24 hours")} ${stat(metrics.recent.last7d, "last 7 days")}
      ${stat(`${metrics.recent.activeDaysLast30} / 30`, "active days")}
      ${stat(formatPercent(metrics.privacy.share), "in privacy mode")}
    </div>
    <div class="split">
      <div>
        <h3>By action type</h3>
        <dl class="facts">
          ${ACTION_TYPE_NAMES.map(
            (type) =>
              html`<dt>${actionTypeTag(type)}</dt>
                <dd>${formatCount(byType[type])}</dd>`,
          )}
        </dl>
      </div>
      <div>
        <h3>Seen</h3>
        <dl class="facts">
          <dt>First attestation</dt>
          <dd>${metrics.firstSeenAt === null ? "never" : timeTag(metrics.firstSeenAt)}</dd>
          <dt>Newest attestation</dt>
          <dd>${metrics.lastSeenAt === null ? "never" : timeTag(metrics.lastSeenAt)}</dd>
          <dt>Ledger counters</dt>
          <dd>
            ${formatCount(metrics.ledgerCounters.singleAttestations)} single,
            ${formatCount(metrics.ledgerCounters.batchItems)} batch items
          </dd>
        </dl>
      </div>
    </div>
  </section>`;
}

export function agentPage(options: {
  profile: ApiAgent;
  page: ApiAttestationPage;
  rpcUrl: string;
  cursor?: string;
}): SafeHtml {
  const { profile, page } = options;
  const path = `/app/agents/${encodeURIComponent(profile.agent)}`;
  return html`<div class="page-head">
      <div>
        <h1>Agent <span class="mono break">${profile.agent}</span></h1>
        <p class="lede">
          Its on-chain registration and policy, what it attested, and its reputation score: all from ledger
          facts the indexer read.
        </p>
      </div>
    </div>
    <div class="grid">${reputationCard(profile)} ${identityCard(profile, options.rpcUrl)}</div>
    ${activityCard(profile)}
    <section class="card flush" aria-labelledby="history">
      <div class="card-bar">
        <h2 id="history" class="inline">Attestations</h2>
        <span>${options.cursor === undefined ? "newest first" : "older page"}</span>
      </div>
      ${attestationTable(attestationRows(page.data, options.rpcUrl))}
    </section>
    ${
      page.pagination.nextCursor === null
        ? null
        : html`<nav class="pager">
            <a
              class="button secondary"
              href="${path}?cursor=${encodeURIComponent(page.pagination.nextCursor)}"
              >Older attestations →</a
            >
          </nav>`
    }`;
}
