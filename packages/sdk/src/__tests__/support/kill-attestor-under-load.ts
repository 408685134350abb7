import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

import type { AttestorUnderLoadConfig } from "./attestor-under-load.js";
import { spawnInNewPidNamespace } from "../../../../dir-lock/src/__tests__/support/pid-namespace.js";

const CHILD_SCRIPT = fileURLToPath(new URL("./attestor-under-load.ts", import.meta.url));

/**
 * Starts an agent process recording under load (attestor-under-load.ts), kills it with SIGKILL
 * once it has reported `killAfter` recorded actions, and returns the hashes of every action whose
 * `record` returned before the kill. With `inNewPidNamespace`, the agent is process 1 of a pid
 * namespace of its own (a container's entry point; needs `unshare` and the right to use it), and
 * the kill ends the namespace, as when a container is killed.
 */
export async function killAttestorUnderLoad(
  config: AttestorUnderLoadConfig,
  killAfter: number,
  { inNewPidNamespace = false }: { inNewPidNamespace?: boolean } = {},
): Promise<string[]> {
  const command = [process.execPath, "--import", "tsx", CHILD_SCRIPT];
  const env = { ...process.env, ABAS_ATTESTOR_UNDER_LOAD: JSON.stringify(config) };
  const agent = inNewPidNamespace
    ? spawnInNewPidNamespace(command, { env })
    : (() => {
        const child = spawn(command[0]!, command.slice(1), { env, stdio: ["ignore", "pipe", "inherit"] });
        return { child, kill: () => child.kill("SIGKILL") };
      })();
  const { child } = agent;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let output = "";
  let killed = false;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    output += chunk;
    if (!killed && output.split("\n").length - 1 >= killAfter) {
      killed = true;
      agent.kill();
    }
  });
  await exited;
  if (!killed) throw new Error(`the agent process exited before it recorded ${killAfter} actions`);
  // Only whole lines: a line cut by the kill was not fully reported.
  return output.split("\n").slice(0, -1);
}
