/** Runs `abas` (its TypeScript sources, through tsx) and other commands as child processes. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = fileURLToPath(new URL(".", import.meta.url));
export const abasBin = resolve(here, "../../bin.ts");
export const tsx = resolve(here, "../../../../../node_modules/.bin/tsx");

export type Result = { code: number | null; stdout: string; stderr: string };

export type RunOptions = { input?: string; env?: NodeJS.ProcessEnv };

/** Runs `command` in `cwd` with `env` (plus `options.env`), `options.input` on its stdin. */
export function runProcess(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  options: RunOptions = {},
): Promise<Result> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd, env: { ...env, ...options.env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}

// node with tsx's loader, not the tsx command, which starts a second node process for each run.
const TSX_LOADER = import.meta.resolve("tsx");

/** `abas` in the folder `cwd`, with the environment `env()` returns when each command starts. */
export function abasIn(cwd: string, env: () => NodeJS.ProcessEnv) {
  const abas = (args: readonly string[], options: RunOptions = {}): Promise<Result> =>
    runProcess(process.execPath, ["--import", TSX_LOADER, abasBin, ...args], cwd, env(), options);
  /** `abas ...args --json`, which must succeed: its JSON document. */
  const abasJson = async <T = Record<string, unknown>>(args: readonly string[]): Promise<T> => {
    const result = await abas([...args, "--json"]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as T;
  };
  return { abas, abasJson };
}

/**
 * An operator funded on the ledger at `rpcUrl` and an agent it registers, made with `abas` in its
 * folder (`operator.json`, `agent.json`) as docs/attest-every-action.md sets them up.
 */
export async function registerAgentWithAbas(
  { abas, abasJson }: ReturnType<typeof abasIn>,
  rpcUrl: string,
): Promise<{ operator: string; agent: string }> {
  const operator = (await abasJson<{ address: string }>(["keygen", "--out", "operator.json"])).address;
  const agent = (await abasJson<{ address: string }>(["keygen", "--out", "agent.json"])).address;
  const funded = await abas(["airdrop", "operator.json", "--sol", "10", "--rpc-url", rpcUrl]);
  assert.equal(funded.code, 0, funded.stderr);
  const registered = await abas([
    "agent",
    "register",
    "--operator",
    "operator.json",
    "--agent",
    "agent.json",
  ]);
  assert.equal(registered.code, 0, registered.stderr);
  return { operator, agent };
}
