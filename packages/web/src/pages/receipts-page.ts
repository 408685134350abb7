/**
 * The receipts page: open a receipts folder (`abas-mcp-proxy --receipts-dir`) with a folder
 * picker, a file picker or by dropping it; the browser script lists the receipts and verifies each
 * one against the ledger, with a progress bar and a summary.
 */
import { html, type SafeHtml } from "../html/html.js";
import type { ReceiptFileProblem } from "../ledger/receipt-files.js";

export const RECEIPTS_READ_PATH = "/app/receipts/read";
export const RECEIPTS_VERIFY_PATH = "/app/receipts/verify";

export function receiptsPage(options: { maxFileBytes: number; tooLarge: ReceiptFileProblem }): SafeHtml {
  return html`<div class="page-head">
      <div>
        <h1>Your receipts</h1>
        <p class="lede">
          Open the receipts folder your agent keeps (<code>abas-mcp-proxy --receipts-dir</code>, one
          <code>&lt;action hash&gt;.json</code> file per recorded action): every receipt is listed and
          verified against the ledger, as <code>abas receipts verify</code> does. Each file is sent to this
          server to be checked, and not kept.
        </p>
      </div>
    </div>
    <section
      class="card"
      data-receipts
      data-read-path="${RECEIPTS_READ_PATH}"
      data-verify-path="${RECEIPTS_VERIFY_PATH}"
      data-max-file-bytes="${String(options.maxFileBytes)}"
      data-too-large="${JSON.stringify(options.tooLarge)}"
    >
      <div class="drop-zone" data-drop-zone>
        <p>Drop a receipts folder or receipt files here, or</p>
        <div class="pickers">
          <label class="button">
            Open a folder
            <input type="file" data-folder-input webkitdirectory multiple hidden />
          </label>
          <label class="button secondary">
            Open files
            <input type="file" data-files-input accept=".json,application/json" multiple hidden />
          </label>
        </div>
        <noscript
          ><p class="notice error">
            This page reads your files in the browser: it needs JavaScript.
          </p></noscript
        >
      </div>
      <div data-receipts-result hidden>
        <div class="progress-line">
          <progress data-progress value="0" max="1"></progress>
          <span data-progress-text></span>
        </div>
        <p class="receipts-summary" data-summary aria-live="polite"></p>
      </div>
    </section>
    <div class="card flush" data-receipts-table-card hidden>
      <div class="card-bar" data-agent-filter-bar hidden>
        <label
          >Agent
          <select data-agent-filter></select
        ></label>
      </div>
      <div class="table-wrap">
        <table class="receipts" data-receipts-table>
          <thead>
            <tr>
              <th>Recorded</th>
              <th>Agent</th>
              <th>Action</th>
              <th>Action hash</th>
              <th>Batch</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody></tbody>
        </table>
      </div>
    </div>`;
}
