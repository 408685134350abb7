import type { ApiAttestation as IndexedAttestation } from "@abas/api-contract";
import { getAddressExplorerUrl, getTransactionExplorerUrl } from "@abas/sdk";

import {
  actionTypeTag,
  agentPath,
  attestationRows,
  attestationTable,
  checkList,
  timeTag,
  verdict,
} from "../html/components.js";
import { formatCount, formatUtc, shortKey } from "../html/format.js";
import { html, type SafeHtml } from "../html/html.js";
import type { LedgerVerification } from "../ledger/verify-record.js";

export interface ShareLinks {
  /** The Solana Action URL: `/api/actions/verify?tx=…`. */
  readonly actionUrl: string;
  /** The same, opened as a blink by dial.to. */
  readonly blinkUrl: string;
  readonly cardUrl: string;
}

function verdictSubject(record: IndexedAttestation, verification: LedgerVerification): SafeHtml {
  if (verification.status !== "verified") return html``;
  const where =
    record.batch === null
      ? "the attestation account exists at its derived address, is owned by the ABAS program and its fields match"
      : `the batch account holds the signed Merkle root, is complete, and this item's proof leads to the root`;
  return html`Checked against the ledger at ${formatUtc(Math.floor(verification.checkedAt / 1000))}: ${where};
  the agent's Ed25519 signature verifies; the transaction succeeded in slot ${formatCount(record.slot)}.
  ${record.privacy ? "The commitment itself opens only with the receipt holder's salt." : null}`;
}

function receiptFacts(record: IndexedAttestation, rpcUrl: string): SafeHtml {
  return html`<dl class="facts">
    <dt>Agent</dt>
    <dd class="mono break"><a href="${agentPath(record.agent)}">${record.agent}</a></dd>
    <dt>Operator</dt>
    <dd class="mono break">${record.operator}</dd>
    <dt>Action type</dt>
    <dd>${actionTypeTag(record.actionType)}</dd>
    <dt>${record.privacy ? "Commitment" : "Action hash"}</dt>
    <dd class="mono break" data-stored-hash>${record.storedHash}</dd>
    <dt>Mode</dt>
    <dd>
      ${
        record.privacy
          ? "Privacy: the ledger stores H(tag ‖ salt ‖ action hash); the action hash and salt stay with the receipt holder"
          : "Normal: the ledger stores the action hash itself"
      }
    </dd>
    <dt>Recorded</dt>
    <dd>
      ${timeTag(record.timestamp)} <span class="muted">(ledger clock, slot ${formatCount(record.slot)})</span>
    </dd>
    <dt>Agent signature</dt>
    <dd class="mono break">${record.agentSignature}</dd>
    <dt>Transaction</dt>
    <dd class="mono break">
      <a href="${getTransactionExplorerUrl(record.txSignature, rpcUrl)}">${record.txSignature} ↗</a>
    </dd>
    ${
      record.batch === null
        ? html`<dt>Account</dt>
            <dd class="mono break">
              <a href="${getAddressExplorerUrl(record.id, rpcUrl)}">${record.id} ↗</a>
            </dd>`
        : html`<dt>Batch</dt>
            <dd>
              Item <b>${record.batch.index + 1}</b> of the batch at
              <a class="mono break" href="${getAddressExplorerUrl(record.batch.address, rpcUrl)}"
                >${record.batch.address} ↗</a
              >
            </dd>
            <dt>Merkle root</dt>
            <dd class="mono break">${record.batch.merkleRoot}</dd>`
    }
  </dl>`;
}

function shareSection(share: ShareLinks): SafeHtml {
  return html`<section class="card" aria-labelledby="share">
    <h2 id="share">Share this receipt</h2>
    <div class="share-card">
      <img src="${share.cardUrl}" alt="Receipt card" width="220" height="220" />
      <div>
        <p class="muted">
          A Solana Action: wallets and sites that understand Actions (blinks) show this receipt as a card with
          its verification status, computed from the ledger when the link is opened.
        </p>
        <div class="copy-field">
          <input type="text" readonly value="${share.actionUrl}" aria-label="Share link" data-share-link />
          <button type="button" class="secondary" data-copy="${share.actionUrl}">Copy</button>
        </div>
        <p><a href="${share.blinkUrl}">Open as a blink on dial.to ↗</a></p>
      </div>
    </div>
  </section>`;
}

/** The attestations a transaction recorded besides the page's subject, if any: named apart, never as part of it. */
function othersSection(others: readonly IndexedAttestation[], rpcUrl: string): SafeHtml {
  if (others.length === 0) return html``;
  return html`<section class="card flush" aria-labelledby="others">
    <h2 id="others">Other attestations in this transaction</h2>
    <p class="muted">
      The same transaction recorded these too; the verdict above does not cover them. Open each to check it on
      its own.
    </p>
    ${attestationTable(attestationRows(others, rpcUrl))}
  </section>`;
}

export function attestationPage(options: {
  record: IndexedAttestation;
  others: readonly IndexedAttestation[];
  verification: LedgerVerification;
  share: ShareLinks;
  rpcUrl: string;
}): SafeHtml {
  const { record, verification } = options;
  return html`<div class="page-head">
      <div>
        <h1>
          ${actionTypeTag(record.actionType)} attested by <span class="mono">${shortKey(record.agent)}</span>
        </h1>
        <p class="lede mono break">${record.id}</p>
      </div>
      <a class="button secondary" href="/app/verify">Verify a payload</a>
    </div>
    ${verdict(verification, verdictSubject(record, verification))}
    <div class="grid">
      <section class="card" aria-labelledby="receipt">
        <h2 id="receipt">Receipt</h2>
        ${receiptFacts(record, options.rpcUrl)}
      </section>
      <section class="card" aria-labelledby="checks">
        <h2 id="checks">Ledger checks</h2>
        ${checkList(verification)}
        ${
          verification.proofSource === "ledger-leaves"
            ? html`<p class="muted last">
                The Merkle proof was computed from the leaves the batch published on the ledger.
              </p>`
            : null
        }
      </section>
    </div>
    ${othersSection(options.others, options.rpcUrl)} ${shareSection(options.share)}`;
}

/**
 * A batch commit transaction: every item of the batch it recorded, and the verification of the
 * commitment they share (root, agent signature, batch account, transaction), checked through its
 * first item; the transaction's other attestations (another batch, another agent's) apart.
 */
export function transactionPage(options: {
  signature: string;
  records: readonly IndexedAttestation[];
  others: readonly IndexedAttestation[];
  verification: LedgerVerification;
  share: ShareLinks;
  rpcUrl: string;
}): SafeHtml {
  const { records, verification } = options;
  const first = records[0]!;
  return html`<div class="page-head">
      <div>
        <h1>Batch of ${records.length} attested action${records.length === 1 ? "" : "s"}</h1>
        <p class="lede mono break">
          <a href="${getTransactionExplorerUrl(options.signature, options.rpcUrl)}">${options.signature} ↗</a>
        </p>
      </div>
    </div>
    ${verdict(
      verification,
      verification.status === "verified"
        ? html`Checked against the ledger at ${formatUtc(Math.floor(verification.checkedAt / 1000))}: the
            batch account holds the Merkle root signed by agent
            <a class="mono" href="${agentPath(first.agent)}">${shortKey(first.agent)}</a>, is complete, and
            its published leaves recompute that root; the transaction succeeded in slot
            ${formatCount(first.slot)}. Open an item to check it on its own.`
        : html``,
    )}
    <div class="card flush">${attestationTable(attestationRows(records, options.rpcUrl))}</div>
    ${othersSection(options.others, options.rpcUrl)} ${shareSection(options.share)}`;
}
