/**
 * `npx abas-ledger` in the outside project, as an agent project starts it for its own tests:
 * free ports, its own data directory, ready once the banner gives the RPC URL.
 */
import type { ChildProcess } from "node:child_process";

import { stopProcessGroup, type OutsideProject } from "./outside-project.js";
import { userEnv } from "./user-env.js";

export interface InstalledLedger {
  readonly rpcUrl: string;
  readonly banner: string;
  stop(): Promise<void>;
}

export async function startInstalledLedger(
  project: OutsideProject,
  dataDir: string,
  /** The `node` that runs it: the first `node` on this PATH prefix (default: the user's). */
  nodeBinDir?: string,
): Promise<InstalledLedger> {
  const env: Record<string, string> =
    nodeBinDir === undefined ? {} : { PATH: `${nodeBinDir}:${userEnv().PATH ?? ""}` };
  const child: ChildProcess = project.start(
    "npx",
    ["abas-ledger", "--data-dir", dataDir, "--rpc-port", "0", "--ws-port", "0"],
    env,
  );
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const rpcUrl = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const match = /RPC URL:\s+(\S+)/.exec(stdout);
      if (match && stdout.includes("Faucet:")) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`npx abas-ledger exited with ${code}:\n${stderr}`)));
  });
  return { rpcUrl, banner: stdout, stop: () => stopProcessGroup(child) };
}
