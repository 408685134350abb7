import type { VerifiedAttestation } from "@abas/sdk";

import { agentPath, actionTypeTag, attestationPath, checkList, timeTag } from "../html/components.js";
import { formatCount } from "../html/format.js";
import { html, type SafeHtml } from "../html/html.js";
import type { ActionLookup, ActionMatch, HashSource } from "../ledger/lookup-action.js";

export interface VerifyForm {
  readonly input: string;
  readonly salt: string;
  readonly proof: string;
}

const SOURCES: Record<HashSource, string> = {
  "action-hash": "the 64-hex action hash you pasted",
  "payload-as-written": "SHA-256 of the text exactly as pasted",
  "canonical-json": "SHA-256 of the payload as canonical JSON (RFC 8785), as the SDK hashes objects",
};

function form(values: VerifyForm): SafeHtml {
  return html`<form class="card" method="post" action="/app/verify">
    <label for="input">Action payload or action hash</label>
    <textarea
      id="input"
      name="input"
      required
      spellcheck="false"
      placeholder='{"tool":"flights.search","arguments":{"from":"LIS","to":"SFO"}}'
    >
${values.input}</textarea>
    <label for="salt"
      >Salt <small>· privacy-mode receipts only: the receipt's 64-hex <code>salt</code></small></label
    >
    <input type="text" id="salt" name="salt" value="${values.salt}" spellcheck="false" autocomplete="off" />
    <details ${values.proof ? html`open` : null}>
      <summary>Batch item: check the receipt's own Merkle proof</summary>
      <label for="proof"
        >Proof
        <small
          >· the receipt's <code>proof</code> list; without it the proof is computed from the leaves the batch
          published on the ledger</small
        ></label
      >
      <textarea id="proof" name="proof" spellcheck="false">${values.proof}</textarea>
    </details>
    <div class="form-actions"><button type="submit">Check against the ledger</button></div>
  </form>`;
}

function kindOf(attestation: VerifiedAttestation): SafeHtml {
  const kind = attestation.batch === null ? html`Single` : html`Batch item ${attestation.batch.index + 1}`;
  return html`${kind}${attestation.privacyMode ? html` <span class="tag tag-plain" title="Privacy mode: the ledger stores a salted commitment">Private</span>` : null}`;
}

function matchCard(match: ActionMatch): SafeHtml {
  const { attestation, verification } = match;
  const attested = verification.status === "verified";
  return html`<section class="card" data-result="${attested ? "attested" : "not-verified"}">
    <div class="verdict ${attested ? "verdict-ok" : "verdict-bad"}">
      <span class="mark" aria-hidden="true">${attested ? "✓" : "✗"}</span>
      <div>
        <strong>${attested ? "Attested" : "Found in the index, but the ledger does not confirm it"}</strong>
        <p>
          ${attestation.actionType === null ? null : actionTypeTag(attestation.actionType)} by agent
          <a class="mono break" href="${agentPath(attestation.agent)}" data-agent>${attestation.agent}</a>
          at <b data-time>${timeTag(attestation.timestamp)}</b>, slot ${formatCount(attestation.slot)}.
        </p>
      </div>
    </div>
    <dl class="facts">
      <dt>Matched by</dt>
      <dd>${SOURCES[match.hash.source]}</dd>
      <dt>Action hash</dt>
      <dd class="mono break">${match.hash.actionHash}</dd>
      ${
        attestation.privacyMode
          ? html`<dt>Commitment</dt>
              <dd class="mono break">${attestation.storedHash}</dd>`
          : null
      }
      <dt>Kind</dt>
      <dd>${kindOf(attestation)}</dd>
      <dt>Receipt</dt>
      <dd><a href="${attestationPath(match.receiptId)}">Open the receipt page →</a></dd>
    </dl>
    <details>
      <summary>What was checked against the ledger</summary>
      ${checkList(verification)}
    </details>
  </section>`;
}

/** The lookup's notes: what it did not find or did not search, and why. */
function lookupNotes(lookup: ActionLookup): SafeHtml | null {
  if (lookup.notes.length === 0) return null;
  return html`<ul class="lookup-notes">
    ${lookup.notes.map((entry) => html`<li data-note="${entry.kind}">${entry.message}</li>`)}
  </ul>`;
}

function notFound(lookup: ActionLookup, indexedSlot: number | null): SafeHtml {
  return html`<section class="card" data-result="not-attested">
    <div class="verdict verdict-bad">
      <span class="mark" aria-hidden="true">✗</span>
      <div>
        ${
          lookup.complete
            ? html`<strong>Not attested</strong>
                <p>
                  No attestation of this action${lookup.privacy ? " under this salt" : ""} is recorded: none
                  of the ABAS transactions read from the
                  ledger${indexedSlot === null ? "" : ` up to slot ${formatCount(indexedSlot)}`} stores its
                  hash.
                </p>`
            : html`<strong>Not found</strong>
                <p>
                  No attestation of this action${lookup.privacy ? " under this salt" : ""} that was checked
                  passed, but the search could not look everywhere: the notes below say what was left out.
                </p>`
        }
      </div>
    </div>
    <dl class="facts">
      ${lookup.candidates.map(
        (candidate) =>
          html`<dt>Tried</dt>
            <dd>
              <span class="mono break">${candidate.actionHash}</span><br /><small class="muted"
                >${SOURCES[candidate.source]}</small
              >
            </dd>`,
      )}
    </dl>
    ${lookupNotes(lookup)}
    <p class="muted last">
      A privacy-mode attestation can only be found with its receipt's salt. An action attested seconds ago may
      not be indexed yet: try again shortly.
    </p>
  </section>`;
}

export function verifyPage(options: {
  form: VerifyForm;
  lookup?: ActionLookup;
  indexedSlot?: number | null;
  error?: string;
}): SafeHtml {
  const { lookup } = options;
  return html`<div class="page-head">
      <div>
        <h1>Verify an action</h1>
        <p class="lede">
          Paste what an agent did (the payload it hashed) or its action hash. This page finds whether, when
          and by which agent it was attested, and checks the attestation against the ledger: account, fields,
          the agent's signature, and for batch items the Merkle proof.
        </p>
      </div>
    </div>
    ${form(options.form)}
    ${options.error === undefined ? null : html`<p class="notice error" role="alert">${options.error}</p>`}
    ${
      lookup === undefined
        ? null
        : lookup.matches.length === 0
          ? notFound(lookup, options.indexedSlot ?? null)
          : html`${lookup.matches.map(matchCard)}${lookupNotes(lookup)}`
    }`;
}
