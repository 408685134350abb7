/** Pieces several pages share: tags, the attestation table, the verification verdict and checks. */
import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";
import { getTransactionExplorerUrl } from "@abas/sdk";

import type { LedgerVerification } from "../ledger/verify-record.js";
import { formatUtc, formatUtcShort, isoTime, shortKey } from "./format.js";
import { html, type SafeHtml } from "./html.js";

export function actionTypeTag(actionType: string, allowed = true): SafeHtml {
  return html`<span class="tag ${allowed ? `tag-${actionType}` : "tag-off"}">${actionType}</span>`;
}

export function timeTag(unixSeconds: number, short = false): SafeHtml {
  return html`<time datetime="${isoTime(unixSeconds)}" title="${formatUtc(unixSeconds)}"
    >${short ? formatUtcShort(unixSeconds) : formatUtc(unixSeconds)}</time
  >`;
}

export function attestationPath(id: string): string {
  return `/app/attestations/${encodeURIComponent(id)}`;
}

export function agentPath(agent: string): string {
  return `/app/agents/${encodeURIComponent(agent)}`;
}

export function kindLabel(record: IndexedAttestation): SafeHtml {
  const kind = record.batch === null ? html`Single` : html`Batch item ${record.batch.index + 1}`;
  return html`${kind}${record.privacy ? html` <span class="tag tag-plain" title="Privacy mode: the ledger stores a salted commitment">Private</span>` : null}`;
}

export function attestationRows(records: readonly IndexedAttestation[], rpcUrl: string): SafeHtml {
  if (records.length === 0) {
    return html`<tr>
      <td class="empty" colspan="6">
        No attestations yet. Attest an action with the SDK (<code>npm run example -w @abas/sdk</code>) and it
        appears here within seconds.
      </td>
    </tr>`;
  }
  return html`${records.map(
    (record) =>
      html`<tr data-id="${record.id}">
        <td><a href="${attestationPath(record.id)}">${timeTag(record.timestamp, true)}</a></td>
        <td>
          <a class="mono" href="${agentPath(record.agent)}" title="${record.agent}"
            >${shortKey(record.agent)}</a
          >
        </td>
        <td>${actionTypeTag(record.actionType)}</td>
        <td class="mono" title="${record.storedHash}">${shortKey(record.storedHash, 8)}</td>
        <td>${kindLabel(record)}</td>
        <td>
          <a
            class="mono"
            href="${getTransactionExplorerUrl(record.txSignature, rpcUrl)}"
            title="${record.txSignature}"
            >${shortKey(record.txSignature)} ↗</a
          >
        </td>
      </tr>`,
  )}`;
}

export function attestationTable(body: SafeHtml, liveSource?: string): SafeHtml {
  return html`<div class="table-wrap">
    <table class="attestations" ${liveSource === undefined ? null : html`data-live-source="${liveSource}"`}>
      <thead>
        <tr>
          <th>Recorded (UTC)</th>
          <th>Agent</th>
          <th>Action type</th>
          <th>Stored hash</th>
          <th>Kind</th>
          <th>Transaction</th>
        </tr>
      </thead>
      <tbody>
        ${body}
      </tbody>
    </table>
  </div>`;
}

const CHECK_ICONS = { passed: "✓", failed: "✗", "not-checked": "–" } as const;

export function checkList(verification: LedgerVerification): SafeHtml {
  if (verification.checks.length === 0) return html``;
  return html`<ul class="checks">
    ${verification.checks.map(
      (check) =>
        html`<li class="${check.outcome}">
          <span class="icon" aria-label="${check.outcome}">${CHECK_ICONS[check.outcome]}</span>
          <span
            >${check.label}${check.detail === undefined ? null : html`<small>${check.detail}</small>`}</span
          >
        </li>`,
    )}
  </ul>`;
}

/** The banner that says what the ledger said. */
export function verdict(verification: LedgerVerification, subject: SafeHtml | string): SafeHtml {
  if (verification.status === "verified") {
    return html`<div class="verdict verdict-ok" data-verdict="verified">
      <span class="mark" aria-hidden="true">✓</span>
      <div>
        <strong>Verified on the ledger</strong>
        <p>${subject}</p>
      </div>
    </div>`;
  }
  if (verification.status === "unavailable") {
    return html`<div class="verdict verdict-unknown" data-verdict="unavailable">
      <span class="mark" aria-hidden="true">?</span>
      <div>
        <strong>The ledger could not be checked</strong>
        <p>${verification.problem ?? "The RPC node did not answer."} Reload the page to try again.</p>
      </div>
    </div>`;
  }
  return html`<div class="verdict verdict-bad" data-verdict="failed">
    <span class="mark" aria-hidden="true">✗</span>
    <div>
      <strong>Not verified: the ledger does not confirm this attestation</strong>
      <p>
        ${verification.checks
          .filter((check) => check.outcome === "failed")
          .map((check) => check.detail ?? check.label)
          .join("; ")}
      </p>
    </div>
  </div>`;
}
