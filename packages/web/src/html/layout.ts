/** The page shell: head, header with navigation, footer, the stylesheet and the one script. */
import type { WebAssets } from "../assets/web-assets.js";
import { html, type SafeHtml } from "./html.js";

export type Section = "attestations" | "receipts" | "verify" | "api-keys";

export interface PageOptions {
  readonly title: string;
  /** The navigation entry to mark as current. */
  readonly section?: Section;
  /** Read by the browser script to know what to wire up. */
  readonly page: string;
  readonly body: SafeHtml;
  readonly assets: WebAssets;
  /** The token state-changing requests of this page send in X-CSRF-Token. */
  readonly csrfToken?: string;
}

const NAVIGATION: readonly [Section, string, string][] = [
  ["attestations", "/app", "Attestations"],
  ["receipts", "/app/receipts", "Receipts"],
  ["verify", "/app/verify", "Verify"],
  ["api-keys", "/app/api-keys", "API keys"],
];

export function renderPage(options: PageOptions): string {
  const { assets } = options;
  return `<!doctype html>\n${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${options.title} · ABAS</title>
        ${options.csrfToken === undefined ? null : html`<meta name="csrf-token" content="${options.csrfToken}" />`}
        <link rel="icon" href="${assets.favicon.path}" type="image/svg+xml" />
        <link rel="stylesheet" href="${assets.stylesheet.path}" />
        <script src="${assets.script.path}" defer></script>
      </head>
      <body data-page="${options.page}">
        <header class="site-header">
          <div class="inner">
            <a class="brand" href="/app"
              ><img src="${assets.favicon.path}" alt="" /> ABAS
              <small>Agent Behavior Attestation Service</small></a
            >
            <nav class="site-nav" aria-label="Main">
              ${NAVIGATION.map(
                ([section, href, label]) =>
                  html`<a href="${href}" ${section === options.section ? html`aria-current="page"` : null}
                    >${label}</a
                  >`,
              )}
            </nav>
          </div>
        </header>
        <main>${options.body}</main>
        <footer class="site-footer">
          Receipts of what AI agents do, signed by the agents' Ed25519 keys and recorded by a Solana program.
          Every verification on these pages is computed from the ledger, not from this server's database.
        </footer>
      </body>
    </html>`.text
  }\n`;
}
