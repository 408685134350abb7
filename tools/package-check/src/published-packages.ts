/**
 * The packages ABAS publishes, packed as `npm publish` would upload them: `npm pack` runs each
 * one's `prepack` (its build), and each tarball's file list and manifest are read back.
 */
import { execFile, spawn } from "node:child_process";
import { join } from "node:path";
import { createInterface } from "node:readline";
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

/** npm's line as each package's `prepack` (its build) starts: `> @abas/sdk@0.1.0 prepack`. */
const PREPACK_LINE = /^> (@abas\/[\w-]+)@\S+ prepack$/;

/**
 * `npm pack` of the published packages in the repository's own environment (prepack builds with
 * the repository's tools): its stdout, once it succeeds. Its stderr is read as it comes, each
 * package named to `onBuilding` as its build starts; a failure throws with the end of stderr.
 */
function npmPack(args: readonly string[], onBuilding: (name: PublishedPackage) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    // At "notice", npm names each lifecycle script as it starts, also when run from `npm run --silent`.
    const child = spawn("npm", ["pack", "--loglevel=notice", ...args], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const stdout: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    createInterface({ input: child.stderr }).on("line", (line) => {
      stderr = `${stderr}${line}\n`.slice(-16_384);
      const name = PREPACK_LINE.exec(line.trim())?.[1];
      if (name !== undefined && (PUBLISHED_PACKAGES as readonly string[]).includes(name))
        onBuilding(name as PublishedPackage);
    });
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === 0) resolve(Buffer.concat(stdout).toString("utf8"));
      else reject(new Error(`npm pack failed (${signal ?? `exit code ${code}`}):\n${stderr.trimEnd()}`));
    });
  });
}

export type PackOptions = Readonly<{
  /** Called as each package's build starts, in dependency order. */
  onBuilding?: (name: PublishedPackage) => void;
}>;

/** `npm pack` of every published package into `destination` (the repository is not changed). */
export async function packPublishedPackages(
  destination: string,
  { onBuilding = () => {} }: PackOptions = {},
): Promise<Map<PublishedPackage, PackedPackage>> {
  const stdout = await npmPack(
    ["--json", "--pack-destination", destination, ...PUBLISHED_PACKAGES.flatMap((name) => ["-w", name])],
    onBuilding,
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
