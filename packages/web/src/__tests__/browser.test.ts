/**
 * The web app in real headless Chromium against the real stack: the live list, an attestation
 * followed from the list to its page (verified on the ledger), the agent page, the verify page,
 * and the API-keys page with a Wallet Standard test wallet: sign in, create a key, use it against
 * the REST API, revoke it. Each page is saved to docs/screenshots/.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { DEFAULT_API_KEY_CACHE_MS } from "@abas/server";
import type { Browser, Page } from "playwright-core";

import { CHROMIUM_SKIP, launchChromium, newContextWithWallet, screenshot } from "./support/browser.js";
import { generateTestKey } from "./support/keys.js";
import { hashOf, startSeededStack, waitFor, type SeededStack } from "./support/stack.js";

let stack: SeededStack;
let browser: Browser;
/** Console errors and uncaught exceptions of every page (a CSP violation shows up here too). */
const pageErrors: string[] = [];

function watchErrors(page: Page): void {
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(`${page.url()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => pageErrors.push(`${page.url()}: ${error.message}`));
}

describe("the web app in a browser", { skip: CHROMIUM_SKIP }, () => {
  before(async () => {
    [stack, browser] = await Promise.all([startSeededStack(), launchChromium()]);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function openPage(path: string): Promise<Page> {
    const context = await newContextWithWallet(browser, {
      key: generateTestKey(),
      name: "ABAS Test Wallet",
      signIn: true,
    });
    const page = await context.newPage();
    watchErrors(page);
    const response = await page.goto(`${stack.origin}${path}`);
    assert.equal(response?.status(), 200, `GET ${path}`);
    return page;
  }

  test("the recent list shows the attestations and takes in new ones without a reload", async () => {
    // Given the list of recent attestations
    const page = await openPage("/app");
    const rows = page.locator("table.attestations tbody tr[data-id]");
    await waitFor(async () => (await rows.count()) === 5, "five rows");
    await screenshot(page, "recent-attestations");

    // When the agent attests another action
    const receipt = await stack.client.attest({
      operatorKeypair: stack.operator.secretKey,
      actionHash: await hashOf({ tool: "calendar.create", title: "Flight LIS-SFO" }),
      actionType: "ModelInvocation",
    });

    // Then it appears at the top of the open page, marked as new
    await page.locator(`tr[data-id="${receipt.attestationAddress}"].fresh`).waitFor({ timeout: 15_000 });
    assert.equal(await rows.count(), 6);
    assert.equal(await rows.first().getAttribute("data-id"), receipt.attestationAddress);
    await page.context().close();
  });

  test("an attestation followed from the list shows verified on the ledger", async () => {
    // Given the list
    const page = await openPage("/app");

    // When the visitor opens the plain single attestation from its row
    await page.locator(`tr[data-id="${stack.plain.attestationAddress}"] td:first-child a`).click();
    await page.waitForURL(`**/app/attestations/${stack.plain.attestationAddress}`);

    // Then its page says it is verified on the ledger, with every check passed
    await assertVerified(page);
    assert.equal(await page.locator("[data-stored-hash]").textContent(), stack.plain.actionHash);
    assert.equal(
      await page.locator("[data-share-link]").inputValue(),
      `${stack.origin}/api/actions/verify?tx=${stack.plain.txSignature}`,
    );
    await screenshot(page, "attestation");
    await page.context().close();
  });

  test("privacy-mode and batch attestations are verified from the ledger too", async () => {
    const cases: [string, string][] = [
      [stack.privateReceipt.attestationAddress, "attestation-private"],
      [`${stack.batch.batchAddress}:2`, "attestation-batch-item"],
    ];
    for (const [id, name] of cases) {
      const page = await openPage(`/app/attestations/${id}`);
      await assertVerified(page);
      await screenshot(page, name);
      // A batch item's share link is that item's, not its whole batch transaction's
      if (id.includes(":")) {
        assert.equal(
          await page.locator("[data-share-link]").inputValue(),
          `${stack.origin}/api/actions/verify?id=${encodeURIComponent(id)}`,
        );
      }
      await page.context().close();
    }
    // And the batch's transaction lists its three items, its commitment verified
    const page = await openPage(`/app/attestations/${stack.batch.txSignature}`);
    assert.equal(await page.locator("tbody tr[data-id]").count(), 3);
    await assertVerified(page);
    await screenshot(page, "transaction");
    await page.context().close();
  });

  test("the agent page shows its policy, status, metrics and reputation with its components", async () => {
    // Given an attestation page, when the visitor follows the agent link
    const page = await openPage(`/app/attestations/${stack.plain.attestationAddress}`);
    await page.locator(`a[href="/app/agents/${stack.client.agentAddress}"]`).first().click();
    await page.waitForURL(`**/app/agents/${stack.client.agentAddress}`);

    // Then the agent's page shows what the ledger says about it
    const text = await page.locator("main").innerText();
    assert.match(text, /active/);
    assert.match(text, /Reputation/);
    for (const component of ["tenure", "volume", "regularity", "compliance"])
      assert.match(text, new RegExp(component));
    assert.match(await page.locator("[data-score]").innerText(), /^\d+$/);
    assert.match(text, /6\s+attestations/);
    await screenshot(page, "agent");
    await page.context().close();
  });

  test("the verify page finds an attested payload, with its agent and time", async () => {
    // Given the verify page
    const page = await openPage("/app/verify");
    await screenshot(page, "verify");

    // When the visitor pastes the payload as the agent's log has it (other spacing than the hash's)
    await page.locator("#input").fill(JSON.stringify(stack.payload, null, 2));
    await page.locator("form button[type=submit]").click();

    // Then it is attested, by that agent, at the ledger's time
    const result = page.locator('[data-result="attested"]');
    await result.waitFor();
    assert.equal(await result.locator("[data-agent]").innerText(), stack.plain.agent);
    assert.equal(
      await result.locator("[data-time] time").getAttribute("datetime"),
      new Date(stack.plain.timestamp * 1000).toISOString(),
    );
    assert.match(await result.innerText(), /canonical JSON/);
    await screenshot(page, "verify-attested");
    await page.context().close();
  });

  test("the verify page opens a privacy-mode receipt with its salt, and checks a batch item's proof", async () => {
    const page = await openPage("/app/verify");
    // A privacy-mode action: the payload alone is not enough, with the salt it is found
    await page.locator("#input").fill(JSON.stringify(stack.privatePayload));
    await page.locator("form button[type=submit]").click();
    await page.locator('[data-result="not-attested"]').waitFor();
    await page.locator("#salt").fill(stack.privateReceipt.salt!);
    await page.locator("form button[type=submit]").click();
    await page.locator('[data-result="attested"]').waitFor();

    // A batch item, with the proof from its receipt
    const item = stack.batch.receipts[1]!;
    await page.locator("#input").fill(item.actionHash);
    await page.locator("#salt").fill("");
    await page.locator("details summary").first().click();
    await page.locator("#proof").fill(JSON.stringify(item.proof));
    await page.locator("form button[type=submit]").click();
    await page.locator('[data-result="attested"]').waitFor();
    assert.match(await page.locator('[data-result="attested"]').innerText(), /Batch item 2/);
    await page.context().close();
  });

  test("the verify page says when a payload was never attested", async () => {
    const page = await openPage("/app/verify");
    await page.locator("#input").fill('{"tool":"flights.search","arguments":{"from":"LIS","to":"JFK"}}');
    await page.locator("form button[type=submit]").click();
    const result = page.locator('[data-result="not-attested"]');
    await result.waitFor();
    assert.match(await result.innerText(), /Not attested/);
    await screenshot(page, "verify-not-attested");

    // A payload whose JSON has a repeated key: the page says why other programs may hash it otherwise
    await page.locator("#input").fill('{"tool":"a","tool":"b"}');
    await page.locator("form button[type=submit]").click();
    const ambiguous = page.locator('[data-result="not-attested"] [data-note="payload-json-ambiguous"]');
    await ambiguous.waitFor();
    assert.match(await ambiguous.innerText(), /"tool"/);
    await page.context().close();
  });

  test("an unknown attestation gets a page that says so", async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    const response = await page.goto(`${stack.origin}/app/attestations/${"1".repeat(32)}`);
    assert.equal(response?.status(), 404);
    assert.match(await page.locator("main").innerText(), /No attestation 1{32} is recorded/);
    await screenshot(page, "not-found");
    await context.close();
  });

  test("an operator signs in with a wallet, creates a key, uses it, and revokes it", async () => {
    // Given a browser with a Wallet Standard wallet that supports solana:signIn
    const wallet = generateTestKey();
    const context = await newContextWithWallet(browser, {
      key: wallet,
      name: "ABAS Test Wallet",
      signIn: true,
    });
    const page = await context.newPage();
    watchErrors(page);
    page.on("dialog", (dialog) => void dialog.accept());
    await page.goto(`${stack.origin}/app/api-keys`);
    const walletButton = page.locator('button[data-wallet="ABAS Test Wallet"]');
    await walletButton.waitFor();
    await screenshot(page, "api-keys-sign-in");

    // When the operator signs in with it
    await walletButton.click();

    // Then the page shows the wallet's keys view
    await page.locator("[data-signed-in-address]").waitFor();
    assert.equal(await page.locator("[data-signed-in-address]").innerText(), wallet.address);

    // When they create a key
    await page.locator("form[data-create-key] input[name=name]").fill("ci pipeline");
    await page.locator("form[data-create-key] button").click();

    // Then the secret is shown once and the key is listed
    const secret = page.locator("[data-new-key-value]");
    await secret.waitFor();
    const key = await secret.innerText();
    assert.match(key, /^abas_[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    await page.locator("tr[data-key-id]", { hasText: "ci pipeline" }).waitFor();
    await screenshot(page, "api-keys-created");

    // And the REST API accepts it
    const authorized = await fetch(`${stack.apiUrl}/attestations?limit=1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(authorized.status, 200);

    // When they revoke it
    await page.locator("button[data-revoke]").click();
    await page.locator("tr[data-key-id] .status-revoked").waitFor();

    // Then the REST API refuses it once its verification is no longer trusted (at most
    // DEFAULT_API_KEY_CACHE_MS after the revocation; the margin absorbs a loaded machine)
    let refused: { status: number; code?: number } = { status: 0 };
    await waitFor(
      async () => {
        const reply = await fetch(`${stack.apiUrl}/attestations?limit=1`, {
          headers: { authorization: `Bearer ${key}` },
        });
        refused = { status: reply.status, ...((await reply.json()) as { code?: number }) };
        return reply.status !== 200;
      },
      "the revoked key to be refused",
      2 * DEFAULT_API_KEY_CACHE_MS,
    );
    assert.equal(refused.status, 401);
    assert.equal(refused.code, 4103);
    await screenshot(page, "api-keys-revoked");
    await context.close();
  });

  test("a wallet without signIn signs in through connect and signMessage, and signs out", async () => {
    const wallet = generateTestKey();
    const context = await newContextWithWallet(browser, {
      key: wallet,
      name: "Message Wallet",
      signIn: false,
    });
    const page = await context.newPage();
    await page.goto(`${stack.origin}/app/api-keys`);
    await page.locator('button[data-wallet="Message Wallet"]').click();
    await page.locator("[data-signed-in-address]").waitFor();
    assert.equal(await page.locator("[data-signed-in-address]").innerText(), wallet.address);
    await page.locator("button[data-sign-out]").click();
    await page.locator('button[data-wallet="Message Wallet"]').waitFor();
    await context.close();
  });

  test("no page logged an error or broke its content security policy", () => {
    assert.deepEqual(pageErrors, []);
  });
});

async function assertVerified(page: Page): Promise<void> {
  const banner = page.locator("[data-verdict]");
  assert.equal(await banner.getAttribute("data-verdict"), "verified", await banner.innerText());
  assert.match(await banner.innerText(), /Verified on the ledger/);
  assert.equal(await page.locator("ul.checks li.failed").count(), 0);
}
