/**
 * A session driven byte by byte, without the client SDK: what exactly the server writes to stdout
 * (only JSON-RPC messages, one per line) and when the first tools/list answer arrives.
 */
import { spawn } from "node:child_process";

export interface RawSession {
  /** Every stdout line, as written. */
  readonly stdoutLines: string[];
  readonly stderr: string;
  readonly exitCode: number | null;
  /** Milliseconds from spawn to the answer of the first tools/list request. */
  readonly toolsListMs: number;
}

type Message = Record<string, unknown> & { id?: number };

const INITIALIZE: Message = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw-session", version: "1.0.0" },
  },
};

/**
 * Spawns `command`, sends initialize, the initialized notification, tools/list (id 2) and then
 * `requests` (ids from 3), waits for every answer, closes stdin and waits for the exit.
 */
export async function runRawSession(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; requests?: Message[]; timeoutMs?: number },
): Promise<RawSession> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
  const requests = options.requests ?? [];
  const expected = new Set([1, 2, ...requests.map((request) => request.id!)]);
  let stdout = "";
  let stderr = "";
  let toolsListMs = NaN;
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const answered = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no answer within the time limit; stderr:\n${stderr}`)),
      options.timeoutMs ?? 30_000,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      for (const line of stdout.split("\n").slice(0, -1)) {
        try {
          const id = (JSON.parse(line) as Message).id;
          if (id === 2 && Number.isNaN(toolsListMs)) toolsListMs = performance.now() - started;
          if (id !== undefined) expected.delete(id);
        } catch {
          // Not JSON: the caller's assertions report it.
        }
      }
      if (expected.size === 0) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (expected.size > 0) reject(new Error(`exited with ${code} before answering; stderr:\n${stderr}`));
    });
  });
  const send = (message: Message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  send(INITIALIZE);
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  requests.forEach(send);
  try {
    await answered;
  } finally {
    child.stdin.end();
  }
  const exitCode =
    child.exitCode ?? (await new Promise<number | null>((resolve) => child.once("exit", resolve)));
  return { stdoutLines: stdout.split("\n").filter((line) => line !== ""), stderr, exitCode, toolsListMs };
}
