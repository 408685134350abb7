import type { ApiKeyRecord } from "@abas/db";

import { timeTag } from "../html/components.js";
import { html, type SafeHtml } from "../html/html.js";

export function signedOutPage(): SafeHtml {
  return html`<div class="page-head">
      <div>
        <h1>API keys</h1>
        <p class="lede">
          Keys for the REST API (<code>/api/v1</code>). Sign in with your Solana wallet: it signs a Sign-In
          With Solana message for this site. Nothing is sent to the ledger and nothing is charged.
        </p>
      </div>
    </div>
    <section class="card" data-sign-in>
      <h2>Sign in with your wallet</h2>
      <p class="muted">
        Wallets that follow the Wallet Standard (Phantom, Solflare, Backpack, …) appear below.
      </p>
      <div class="wallets" data-wallets><span class="muted">Looking for wallets…</span></div>
      <p class="notice error" role="alert" data-sign-in-error hidden></p>
    </section>
    <p class="muted">
      Keys made with the command line (<code>npm run keys -- create --name …</code>) belong to the owner
      <code>cli</code> and are managed there.
    </p>`;
}

export function keysTable(keys: readonly ApiKeyRecord[]): SafeHtml {
  return html`<div class="table-wrap" data-keys-table>
    <table>
      <thead>
        <tr>
          <th>Name</th>
          <th>Key</th>
          <th>Created</th>
          <th>Last used</th>
          <th>Status</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${
          keys.length === 0
            ? html`<tr>
                <td class="empty" colspan="6">No keys yet: create one above.</td>
              </tr>`
            : keys.map(
                (key) =>
                  html`<tr data-key-id="${key.id}">
                    <td><b>${key.name}</b></td>
                    <td class="mono">${key.prefix}…</td>
                    <td>${timeTag(Math.floor(key.createdAt / 1000), true)}</td>
                    <td>
                      ${key.lastUsedAt === null ? html`<span class="muted">never</span>` : timeTag(Math.floor(key.lastUsedAt / 1000), true)}
                    </td>
                    <td>
                      ${
                        key.revokedAt === null
                          ? html`<span class="tag status-active">active</span>`
                          : html`<span class="tag status-revoked" title="revoked">revoked</span>`
                      }
                    </td>
                    <td>
                      ${
                        key.revokedAt === null
                          ? html`<button
                              type="button"
                              class="danger"
                              data-revoke="${key.id}"
                              data-name="${key.name}"
                            >
                              Revoke
                            </button>`
                          : null
                      }
                    </td>
                  </tr>`,
              )
        }
      </tbody>
    </table>
  </div>`;
}

export function signedInPage(options: { address: string; keys: readonly ApiKeyRecord[] }): SafeHtml {
  return html`<div class="page-head">
      <div>
        <h1>API keys</h1>
        <p class="lede">
          Signed in as <span class="mono break" data-signed-in-address>${options.address}</span>. Send a key
          as <code>Authorization: Bearer &lt;key&gt;</code> to the REST API; a revoked key is refused within 2
          seconds (the API trusts a key it has checked for that long).
        </p>
      </div>
      <button type="button" class="secondary" data-sign-out>Sign out</button>
    </div>
    <section class="card">
      <h2>Create a key</h2>
      <form class="row" data-create-key>
        <input
          type="text"
          name="name"
          maxlength="100"
          required
          placeholder="A name to recognise it by, e.g. ci-pipeline"
          aria-label="Key name"
        />
        <button type="submit">Create key</button>
      </form>
      <div class="notice success" data-new-key hidden>
        <b>Copy your new key now: it is shown only once.</b>
        <div class="secret">
          <code data-new-key-value></code
          ><button type="button" class="secondary" data-copy-new-key>Copy</button>
        </div>
      </div>
      <p class="notice error" role="alert" data-keys-error hidden></p>
    </section>
    <section class="card flush">
      <div class="card-bar">
        <h2 class="inline">Your keys</h2>
        <span>owner ${options.address}</span>
      </div>
      ${keysTable(options.keys)}
    </section>`;
}
