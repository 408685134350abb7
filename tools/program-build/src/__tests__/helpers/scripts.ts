import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE_DIR = fileURLToPath(new URL("../../../", import.meta.url));
export const FIXTURES_DIR = join(PACKAGE_DIR, "fixtures");

/** Runs one of the package's scripts the way npm does (node + tsx), capturing its output. */
export function runScript(
  script: "cli.ts" | "host-tests.ts",
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ["--import", "tsx", join(PACKAGE_DIR, "src", script), ...args], {
    cwd: PACKAGE_DIR,
    encoding: "utf8",
    env,
  });
}
