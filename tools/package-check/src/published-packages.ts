/**
 * The packages ABAS publishes, packed as `npm publish` would upload them: `npm pack` runs each
 * one's `prepack` (its build), and each tarball's file list and manifest are read back.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { userEnv } from "./user-env.js";

const run = promisify(execFile);
export const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** Every published package, in dependency order. */
export const PUBLISHED_PACKAGES = [
  "@abas/dir-lock",
  "@abas/errors",
  "@abas/api-contract",
  "@abas/program-client",
  "@abas/sdk",
  "@abas/ledger",
  "@abas/mcp-proxy",
  "@abas/agent-adapters",
  "@abas/cli",
  "@abas/mcp",
] as const;
export type PublishedPackage = (typeof PUBLISHED_PACKAGES)[number];

export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly engines?: Record<string, string>;
  readonly exports?: Record<string, unknown>;
  readonly bin?: Record<string, string>;
  readonly files?: string[];
  readonly dependencies?: Record<string, string>;
  readonly scripts?: Record<string, string>;
}

export interface PackedPackage {
  readonly name: PublishedPackage;
  readonly tarball: string;
  /** Paths inside the package, e.g. `dist/index.js`. */
  readonly files: readonly string[];
  readonly manifest: PackageManifest;
}

/** `npm pack` of every published package into `destination` (the repository is not changed). */
export async function packPublishedPackages(
  destination: string,
): Promise<Map<PublishedPackage, PackedPackage>> {
  const { stdout } = await run(
    "npm",
    [
      "pack",
      "--json",
      "--pack-destination",
      destination,
      ...PUBLISHED_PACKAGES.flatMap((name) => ["-w", name]),
    ],
    // The repository's own environment: prepack builds with the repository's tools.
    { cwd: REPO_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const packed = JSON.parse(stdout.slice(stdout.indexOf("["))) as {
    name: PublishedPackage;
    filename: string;
    files: { path: string }[];
  }[];
  const result = new Map<PublishedPackage, PackedPackage>();
  for (const entry of packed) {
    const tarball = join(destination, entry.filename);
    const { stdout: manifest } = await run("tar", ["-xzOf", tarball, "package/package.json"], {
      env: userEnv(),
    });
    result.set(entry.name, {
      name: entry.name,
      tarball,
      files: entry.files.map((file) => file.path).sort(),
      manifest: JSON.parse(manifest) as PackageManifest,
    });
  }
  return result;
}
