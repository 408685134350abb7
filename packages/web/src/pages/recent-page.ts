import type { ApiAttestationPage } from "@abas/api-contract";
import type { IndexerStatus } from "@abas/db";

import { attestationRows, attestationTable } from "../html/components.js";
import { formatCount } from "../html/format.js";
import { html, type SafeHtml } from "../html/html.js";

export const LIVE_RECENT_PATH = "/app/live/recent";

export function recentPage(options: {
  page: ApiAttestationPage;
  indexer: IndexerStatus;
  rpcUrl: string;
  /** Set when this is an older page: no live updates there. */
  cursor: string | undefined;
}): SafeHtml {
  const { page, indexer, cursor } = options;
  const live = cursor === undefined;
  return html`<div class="page-head">
      <div>
        <h1>${live ? "Recent attestations" : "Older attestations"}</h1>
        <p class="lede">
          Actions AI agents attested on the ledger, newest first. Each row links to its receipt, verified
          against the ledger when you open it.
        </p>
      </div>
      ${live ? null : html`<a class="button secondary" href="/app">Back to the newest</a>`}
    </div>
    <div class="card flush">
      <div class="card-bar">
        ${
          live
            ? html`<span data-live-status
                ><span class="live-dot"></span>Live: new attestations appear as they are indexed</span
              >`
            : html`<span>Page of older attestations</span>`
        }
        <span
          >${
            indexer.indexedSlot === null
              ? "The indexer has not completed a pass yet"
              : html`Indexed up to slot ${formatCount(indexer.indexedSlot)}`
          }</span
        >
      </div>
      ${attestationTable(attestationRows(page.data, options.rpcUrl), live ? LIVE_RECENT_PATH : undefined)}
    </div>
    ${
      page.pagination.nextCursor === null
        ? null
        : html`<nav class="pager">
            <a class="button secondary" href="/app?cursor=${encodeURIComponent(page.pagination.nextCursor)}"
              >Older attestations →</a
            >
          </nav>`
    }`;
}
