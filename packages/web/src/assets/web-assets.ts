/**
 * The browser script and the stylesheet, ready in memory when the server starts: the script is
 * TypeScript bundled with esbuild (no build step, nothing written to disk), and both are served
 * under a content hash so browsers may cache them for good.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

export interface WebAsset {
  /** The path it is served at, with its content hash. */
  readonly path: string;
  readonly contentType: string;
  readonly body: Buffer;
}

export interface WebAssets {
  readonly script: WebAsset;
  readonly stylesheet: WebAsset;
  readonly favicon: WebAsset;
}

export const ASSET_PREFIX = "/app/assets/";
const BROWSER_ENTRY = fileURLToPath(new URL("../../browser/app.ts", import.meta.url));
const STYLESHEET = fileURLToPath(new URL("./app.css", import.meta.url));

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#14532d"/><path d="M9 16.5l4.5 4.5L23 11" fill="none" stroke="#fff" stroke-width="3.2" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

function hashed(name: string, extension: string, contentType: string, body: Buffer): WebAsset {
  const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
  return { path: `${ASSET_PREFIX}${name}.${hash}.${extension}`, contentType, body };
}

/** Bundles a browser entry point into one IIFE script (also used by the tests for their wallet). */
export async function bundleBrowserScript(entry: string): Promise<Buffer> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
  });
  return Buffer.from(result.outputFiles[0]!.contents);
}

export async function loadWebAssets(): Promise<WebAssets> {
  const [script, stylesheet] = await Promise.all([bundleBrowserScript(BROWSER_ENTRY), readFile(STYLESHEET)]);
  return {
    script: hashed("app", "js", "text/javascript; charset=utf-8", script),
    stylesheet: hashed("app", "css", "text/css; charset=utf-8", stylesheet),
    favicon: hashed("favicon", "svg", "image/svg+xml", Buffer.from(FAVICON)),
  };
}
