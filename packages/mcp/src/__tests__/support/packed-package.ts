/**
 * The package as a user gets it: `npm pack` (whose prepack script bundles dist/abas-mcp.js), then
 * the tarball installed offline into a fresh directory, where `npx -y @abas/mcp` finds it, as the
 * MCP config's command does after a download from the registry.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const PACKAGE_DIR = fileURLToPath(new URL("../../../", import.meta.url));

export interface InstalledPackage {
  /** A directory with only @abas/mcp installed: run `npx -y @abas/mcp` there. */
  readonly hostDir: string;
  readonly tarball: string;
  /** The names of the package's dependencies as installed: none. */
  readonly installedPackages: string[];
  dispose(): void;
}

export async function packAndInstall(): Promise<InstalledPackage> {
  const root = mkdtempSync(join(tmpdir(), "abas-mcp-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", root], {
    cwd: PACKAGE_DIR,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string }[];
  const tarball = join(root, packed!.filename);

  const hostDir = join(root, "host");
  await run("mkdir", ["-p", hostDir]);
  writeFileSync(join(hostDir, "package.json"), JSON.stringify({ name: "mcp-host", private: true }));
  await run("npm", ["install", "--no-audit", "--no-fund", "--offline", tarball], { cwd: hostDir });
  const installedPackages = readdirSync(join(hostDir, "node_modules"), { withFileTypes: true })
    .filter((entry) => !entry.name.startsWith("."))
    .flatMap((entry) =>
      entry.name.startsWith("@")
        ? readdirSync(join(hostDir, "node_modules", entry.name)).map((name) => `${entry.name}/${name}`)
        : [entry.name],
    );
  return {
    hostDir,
    tarball,
    installedPackages,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}
