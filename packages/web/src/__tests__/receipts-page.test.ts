/**
 * The receipts page in real headless Chromium against the real stack: a receipts folder written
 * as `abas-mcp-proxy` writes it (tool calls recorded by the Attestor on the ledger) is opened with
 * the folder picker, the file picker and by drag and drop; each receipt is listed and verified
 * against the ledger. A tampered proof and a file that is not a receipt fail with their exact
 * codes, and the other receipts are verified all the same. A server that limits checks is waited for.
 */
import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import type { Browser, Page } from "playwright-core";

import { openTestDatabase } from "@abas/db/testing";
import Fastify from "fastify";

import { webPlugin } from "../index.js";
import { verifyReceiptFileText } from "../ledger/receipt-files.js";
import { CHROMIUM_SKIP, launchChromium, screenshot } from "./support/browser.js";
import { recordToolCallsInto, type RecordedToolCall } from "./support/receipts-folder.js";
import { startSeededStack, type SeededStack } from "./support/stack.js";

let stack: SeededStack;
let browser: Browser;
let work: string;
let folder: string;
let recorded: RecordedToolCall[];
const pageErrors: string[] = [];

/** A copy of the receipts folder whose file for `actionHash` is changed by `tamper`. */
function tamperedCopy(
  name: string,
  actionHash: string,
  tamper: (content: { call: Record<string, unknown>; receipt: Record<string, unknown> }) => void,
): string {
  const copy = join(work, name);
  cpSync(folder, copy, { recursive: true });
  const file = join(copy, `${actionHash}.json`);
  const content = JSON.parse(readFileSync(file, "utf8"));
  tamper(content);
  writeFileSync(file, JSON.stringify(content, null, 2));
  return copy;
}

const filesOf = (dir: string): string[] => readdirSync(dir).map((name) => join(dir, name));

describe("the receipts page", { skip: CHROMIUM_SKIP }, () => {
  before(async () => {
    work = mkdtempSync(join(tmpdir(), "abas-web-receipts-"));
    folder = join(work, "abas-receipts");
    mkdirSync(folder);
    [stack, browser] = await Promise.all([startSeededStack(), launchChromium()]);
    recorded = await recordToolCallsInto(stack, folder);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  /** `expectedConsoleError`: the one console error the test provokes on purpose (not recorded). */
  async function openReceiptsPage(origin = stack.origin, expectedConsoleError?: RegExp): Promise<Page> {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 860 },
      deviceScaleFactor: 1,
    });
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() !== "error" || expectedConsoleError?.test(message.text())) return;
      pageErrors.push(`${page.url()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    const response = await page.goto(`${origin}/app/receipts`);
    assert.equal(response?.status(), 200);
    return page;
  }

  async function summaryWhenDone(page: Page): Promise<Record<string, string | undefined>> {
    const summary = page.locator('[data-summary][data-done="true"]');
    await summary.waitFor({ timeout: 60_000 });
    return {
      verified: (await summary.getAttribute("data-verified")) ?? undefined,
      failed: (await summary.getAttribute("data-failed")) ?? undefined,
      unreadable: (await summary.getAttribute("data-unreadable")) ?? undefined,
      unavailable: (await summary.getAttribute("data-unavailable")) ?? undefined,
      text: await summary.innerText(),
    };
  }

  async function statuses(page: Page): Promise<Array<string | null>> {
    const rows = page.locator("table[data-receipts-table] tbody tr");
    const count = await rows.count();
    return await Promise.all(
      Array.from({ length: count }, (_, index) => rows.nth(index).getAttribute("data-status")),
    );
  }

  test("a receipts folder opened with the folder picker is listed and every receipt verifies", async () => {
    // Given the receipts page
    const page = await openReceiptsPage();

    // When the visitor opens the folder the proxy wrote
    await page.locator("input[data-folder-input]").setInputFiles(folder);

    // Then its three receipts are listed in ledger order, each verified on the ledger (one agent: no agent choice)
    const summary = await summaryWhenDone(page);
    assert.deepEqual(
      { verified: summary.verified, failed: summary.failed, unreadable: summary.unreadable },
      { verified: "3", failed: "0", unreadable: "0" },
    );
    assert.match(summary.text!, /^3\/3 receipts verified$/);
    assert.deepEqual(await statuses(page), ["verified", "verified", "verified"]);
    assert.equal(await page.locator("select[data-agent-filter]").isVisible(), false);
    const rows = page.locator("table[data-receipts-table] tbody tr");
    const text = await rows.allInnerTexts();
    assert.deepEqual(
      text.map((row) => /(echo|get-sum|no-such-tool)/.exec(row)?.[1]),
      recorded.map(({ call }) => call.tool),
    );
    assert.match(text[2]!, /no-such-tool\s+error/);
    const agent = recorded[0]!.receipt.agent;
    assert.equal(await rows.first().locator(`a[title="${agent}"]`).count(), 1);
    assert.equal(await page.locator("[data-progress]").getAttribute("value"), "3");
    await screenshot(page, "receipts");

    // When the visitor follows a receipt's batch link, the batch page lists its three items
    await rows.nth(1).locator("a[data-batch-link]").click();
    await page.waitForURL(`**/app/attestations/${recorded[0]!.receipt.txSignature}`);
    assert.equal(await page.locator("tbody tr[data-id]").count(), 3);
    assert.equal(await page.locator("[data-verdict]").getAttribute("data-verdict"), "verified");
    await page.context().close();
  });

  test("a tampered proof fails with ABAS_SDK__RECEIPT_VERIFICATION_FAILED, the others verify", async () => {
    // Given a folder where one receipt's Merkle proof was changed
    const target = recorded[1]!.receipt.actionHash;
    const copy = tamperedCopy("tampered-proof", target, ({ receipt }) => {
      const proof = receipt.proof as string[];
      proof[0] = `${proof[0]!.slice(0, -1)}${proof[0]!.endsWith("0") ? "1" : "0"}`;
    });
    const page = await openReceiptsPage();

    // When its files are opened with the file picker
    await page.locator("input[data-files-input]").setInputFiles(filesOf(copy));

    // Then that receipt fails with the code the CLI reports, and the two others verify
    const summary = await summaryWhenDone(page);
    assert.deepEqual({ verified: summary.verified, failed: summary.failed }, { verified: "2", failed: "1" });
    assert.match(summary.text!, /^2\/3 receipts verified, 1 failed$/);
    const failed = page.locator(`tr[data-action-hash="${target}"]`);
    assert.equal(await failed.getAttribute("data-status"), "failed");
    assert.equal(
      await failed.locator("[data-code]").innerText(),
      "ABAS_SDK__RECEIPT_VERIFICATION_FAILED 3804",
    );
    assert.match(await failed.locator("[data-message]").innerText(), /merkleProof/);
    await screenshot(page, "receipts-failed");
    await page.context().close();
  });

  test("a call changed after it was recorded fails with ABAS_SDK__RECEIPT_CALL_MISMATCH", async () => {
    const target = recorded[0]!.receipt.actionHash;
    const copy = tamperedCopy("tampered-call", target, ({ call }) => {
      call.arguments = { message: "two" };
    });
    const page = await openReceiptsPage();
    await page.locator("input[data-folder-input]").setInputFiles(copy);
    const summary = await summaryWhenDone(page);
    assert.deepEqual({ verified: summary.verified, failed: summary.failed }, { verified: "2", failed: "1" });
    const failed = page.locator(`tr[data-action-hash="${target}"]`);
    assert.equal(await failed.locator("[data-code]").innerText(), "ABAS_SDK__RECEIPT_CALL_MISMATCH 3803");
    await page.context().close();
  });

  test("a file that is not a receipt gets ABAS_SDK__RECEIPT_FILE_UNREADABLE, and nothing else is lost", async () => {
    // Given a folder holding, besides its receipts, notes, an unrelated JSON file and one too large to be a receipt
    const copy = join(work, "with-strangers");
    cpSync(folder, copy, { recursive: true });
    writeFileSync(join(copy, "notes.txt"), "remember to rotate the agent key\n");
    writeFileSync(join(copy, "package.json"), JSON.stringify({ name: "not-a-receipt" }));
    writeFileSync(
      join(copy, "dump.json"),
      JSON.stringify({ call: null, receipt: { log: "x".repeat(5_000_000) } }),
    );
    const page = await openReceiptsPage();

    // When the folder is opened
    await page.locator("input[data-folder-input]").setInputFiles(copy);

    // Then the strangers are named as not receipts, and the three receipts verify
    const summary = await summaryWhenDone(page);
    assert.deepEqual(
      { verified: summary.verified, failed: summary.failed, unreadable: summary.unreadable },
      { verified: "3", failed: "0", unreadable: "3" },
    );
    assert.match(summary.text!, /^3\/3 receipts verified, 3 files are not a receipt$/);
    for (const name of ["notes.txt", "package.json", "dump.json"]) {
      const row = page.locator(`tr[data-file$="/${name}"]`);
      assert.equal(await row.getAttribute("data-status"), "unreadable");
      assert.equal(await row.locator("[data-code]").innerText(), "ABAS_SDK__RECEIPT_FILE_UNREADABLE 3802");
    }
    assert.match(
      await page.locator('tr[data-file$="/dump.json"] [data-message]').innerText(),
      /larger than 4 MB/,
    );
    await page.context().close();
  });

  test("a folder with two agents' receipts lists one agent's when it is chosen", async () => {
    // Given a folder with the receipts of two agents
    const shared = join(work, "two-agents");
    cpSync(folder, shared, { recursive: true });
    const other = await recordToolCallsInto(stack, shared);
    const page = await openReceiptsPage();

    // When it is opened, every receipt of both is verified
    await page.locator("input[data-folder-input]").setInputFiles(shared);
    const summary = await summaryWhenDone(page);
    assert.equal(summary.verified, "6");

    // And when the visitor chooses the second agent, only its three receipts are listed
    const filter = page.locator("select[data-agent-filter]");
    assert.equal(await filter.isVisible(), true);
    await filter.selectOption(other[0]!.receipt.agent);
    const visible = page.locator("table[data-receipts-table] tbody tr:visible");
    assert.equal(await visible.count(), 3);
    for (const { receipt } of other) {
      assert.equal(await page.locator(`tr[data-action-hash="${receipt.actionHash}"]`).isVisible(), true);
    }
    await filter.selectOption("");
    assert.equal(await visible.count(), 6);
    await page.context().close();
  });

  test("receipt files dropped on the page are listed and verified", async () => {
    const page = await openReceiptsPage();
    const files = filesOf(folder).map((path) => ({
      name: path.slice(path.lastIndexOf("/") + 1),
      text: readFileSync(path, "utf8"),
    }));

    // When the visitor drops the receipt files on the drop zone
    const transfer = await page.evaluateHandle(`(() => {
      const transfer = new DataTransfer();
      for (const { name, text } of ${JSON.stringify(files)})
        transfer.items.add(new File([text], name, { type: "application/json" }));
      return transfer;
    })()`);
    await page.locator("[data-drop-zone]").dispatchEvent("drop", { dataTransfer: transfer });

    // Then they are verified like opened ones
    const summary = await summaryWhenDone(page);
    assert.equal(summary.verified, "3");
    await page.context().close();
  });

  test("a receipt of another program than the one the service follows fails its program check", async () => {
    const file = filesOf(folder)[0]!;
    const other = "BPFLoaderUpgradeab1e11111111111111111111111";
    const answer = await verifyReceiptFileText("abas-receipts/a.json", readFileSync(file, "utf8"), {
      rpcUrl: stack.rpcUrl,
      programId: other,
    });
    assert.equal(answer.status, "failed");
    const { error } = answer as { error: { codeName: string; message: string } };
    assert.equal(error.codeName, "ABAS_SDK__RECEIPT_VERIFICATION_FAILED");
    assert.match(
      error.message,
      new RegExp(
        `program \\(the receipt is of the program ${recorded[0]!.receipt.programId}, not of ${other}, `,
      ),
    );
  });

  test("a ledger that never answers leaves a receipt unchecked, never verified", async () => {
    // Given an RPC node that accepts connections and never answers
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      // When a receipt is verified against it
      const file = filesOf(folder)[0]!;
      const answer = await verifyReceiptFileText("abas-receipts/a.json", readFileSync(file, "utf8"), {
        rpcUrl: `http://127.0.0.1:${port}`,
        programId: recorded[0]!.receipt.programId,
        timeoutMs: 500,
      });

      // Then the answer says the ledger could not be checked
      assert.equal(answer.status, "unavailable");
      assert.match((answer as { message: string }).message, /^The ledger could not be checked: /);
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  test("a server that limits checks is waited for as long as it says, and every receipt verifies", async () => {
    // Given the web app behind a fault injected on purpose: its first receipt check is refused
    // with 429 and Retry-After: 1, as the server's own limit refuses a client past its allowance
    const database = await openTestDatabase("sqlite");
    const app = Fastify();
    let checks = 0;
    app.addHook("onRequest", async (request, reply) => {
      if (request.url !== "/app/receipts/verify" || (checks += 1) > 1) return;
      await reply
        .code(429)
        .header("retry-after", "1")
        .send({ message: "Too many receipt checks: try again in 1 s.", code: "rate-limited" });
    });
    await app.register(webPlugin, { db: database.db, dialect: database.dialect, rpcUrl: stack.rpcUrl });
    const origin = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      const page = await openReceiptsPage(origin, /status of 429/);

      // When the visitor opens the folder
      await page.locator("input[data-folder-input]").setInputFiles(folder);

      // Then the page says it waits, and once the server allows it, every receipt verifies
      await page.locator("[data-progress-text]", { hasText: "the server limits checks" }).waitFor();
      const summary = await summaryWhenDone(page);
      assert.deepEqual(
        { verified: summary.verified, unavailable: summary.unavailable },
        { verified: "3", unavailable: "0" },
      );
      assert.equal(checks, 4);
      await page.context().close();
    } finally {
      await app.close();
      await database.dispose();
    }
  });

  test("no receipts page logged an error or broke its content security policy", () => {
    assert.deepEqual(pageErrors, []);
  });
});
