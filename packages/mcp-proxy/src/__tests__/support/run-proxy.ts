/** The proxy's bin as a plain child process, for what the MCP client does not show: exit codes, signals, raw bytes. */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";

import { proxyCommand } from "./proxy-process.js";

export type ProxyRun = Readonly<{
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}>;

export function startProxy(
  proxyArgs: readonly string[],
  server: readonly string[],
  env: NodeJS.ProcessEnv = {},
): ProxyRun {
  const [command, ...args] = proxyCommand(proxyArgs, server);
  const child = spawn(command!, args, { env: { ...process.env, ...env }, stdio: "pipe" });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** Resolves with the first stdout line that holds `text`. */
export async function waitForLine(run: ProxyRun, text: string, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = run
      .stdout()
      .split("\n")
      .find((candidate) => candidate.includes(text));
    if (line !== undefined) return line;
    if (Date.now() > deadline)
      throw new Error(`no line with ${text} on the proxy's stdout; stderr: ${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once the proxy's stderr matches `pattern`. */
export async function waitForStderr(run: ProxyRun, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(run.stderr())) {
    if (Date.now() > deadline)
      throw new Error(`nothing on the proxy's stderr matches ${pattern}: ${run.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
