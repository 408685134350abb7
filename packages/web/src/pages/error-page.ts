import { html, type SafeHtml } from "../html/html.js";

export function errorPage(statusCode: number, message: string): SafeHtml {
  const title =
    statusCode === 404 ? "Not found" : statusCode >= 500 ? "Something went wrong" : "Request refused";
  return html`<div class="card">
    <h1>${title}</h1>
    <p>${message}</p>
    <p class="last"><a href="/app">← Recent attestations</a></p>
  </div>`;
}
