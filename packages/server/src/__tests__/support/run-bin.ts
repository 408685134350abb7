/** Runs `abas-server` (src/bin.ts) as a child process, as a user would. */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN_PATH = fileURLToPath(new URL("../../bin.ts", import.meta.url));
const TSX_LOADER = import.meta.resolve("tsx");

export interface BinResult {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The parent's environment without its database settings, plus `env`. */
export function childEnv(env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  delete base.DATABASE_URL;
  delete base.DATA_DIR;
  return { ...base, ...env };
}

export function spawnBin(args: readonly string[], env: Readonly<Record<string, string>>): ChildProcess {
  return spawn(process.execPath, ["--import", TSX_LOADER, BIN_PATH, ...args], {
    env: childEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
}

export async function runBin(
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): Promise<BinResult> {
  const child = spawnBin(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { exitCode, stdout, stderr };
}
