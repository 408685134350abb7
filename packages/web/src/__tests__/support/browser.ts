/**
 * Real headless Chromium (Debian's, through playwright-core: no browser download), a fresh profile
 * per context, and the test wallet registered in the page through the Wallet Standard, its key held
 * by this Node process.
 */
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

import { bundleBrowserScript } from "../../assets/web-assets.js";
import type { TestKey } from "./keys.js";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_SKIP = existsSync(CHROMIUM)
  ? false
  : "install Debian's chromium: sudo apt-get install chromium";

export const SCREENSHOTS = fileURLToPath(new URL("../../../../../docs/screenshots/", import.meta.url));
const TEST_WALLET = fileURLToPath(new URL("../../../browser/test-wallet.ts", import.meta.url));

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface WalletOptions {
  readonly key: TestKey;
  readonly name: string;
  /** Offer solana:signIn; without it the app falls back to standard:connect + solana:signMessage. */
  readonly signIn: boolean;
}

let walletScript: Promise<string> | undefined;

/** A fresh browser context (its own cookies and storage) with a test wallet in every page. */
export async function newContextWithWallet(browser: Browser, wallet: WalletOptions): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
  walletScript ??= bundleBrowserScript(TEST_WALLET).then((bytes) => bytes.toString("utf8"));
  const config = {
    name: wallet.name,
    address: wallet.key.address,
    publicKey: Buffer.from(wallet.key.publicKey).toString("base64"),
    signIn: wallet.signIn,
  };
  await context.exposeFunction("abasTestWalletSign", (messageBase64: string) =>
    Buffer.from(wallet.key.sign(Buffer.from(messageBase64, "base64"))).toString("base64"),
  );
  await context.addInitScript({
    content: `window.__abasTestWallet = ${JSON.stringify(config)};\n${await walletScript}`,
  });
  return context;
}

/** Saves a full-page screenshot as docs/screenshots/<name>.png (overwritten each run). */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage: true, animations: "disabled" });
}
