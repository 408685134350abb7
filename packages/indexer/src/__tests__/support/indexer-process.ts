/** `abas-indexer` in its own process, as an operator runs it; killable with SIGKILL at any moment. */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BIN_PATH = fileURLToPath(new URL("../../bin.ts", import.meta.url));
const TSX_LOADER = import.meta.resolve("tsx");

export type IndexerProcessOptions = Readonly<{
  rpcUrl: string;
  wsUrl: string;
  programId: string;
  databaseUrl: string;
  command?: "run" | "reindex";
  pollIntervalMs?: number;
  logLevel?: string;
}>;

export type IndexerProcess = Readonly<{
  pid: number;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** The JSON log lines it printed so far, parsed. */
  logs: () => readonly Record<string, unknown>[];
  /** Other stderr and stdout lines (progress, summaries). */
  output: () => readonly string[];
  /** Resolves when a log line with this `msg` appears. */
  waitForLog: (message: string, timeoutMs?: number) => Promise<Record<string, unknown>>;
  kill9: () => Promise<void>;
  /** Sends a signal without waiting (SIGSTOP freezes the process, SIGCONT resumes it). */
  signal: (signal: NodeJS.Signals) => void;
  /** SIGTERM, then waits for the exit. */
  stop: () => Promise<number | null>;
}>;

export function spawnIndexerProcess(options: IndexerProcessOptions): IndexerProcess {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, BIN_PATH, options.command ?? "run"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      RPC_URL: options.rpcUrl,
      WS_URL: options.wsUrl,
      PROGRAM_ID: options.programId,
      DATABASE_URL: options.databaseUrl,
      POLL_INTERVAL_MS: String(options.pollIntervalMs ?? 200),
      LOG_LEVEL: options.logLevel ?? "info",
    },
  });
  const logs: Record<string, unknown>[] = [];
  const output: string[] = [];
  const waiters: { message: string; resolve: (line: Record<string, unknown>) => void }[] = [];
  const onLine = (line: string): void => {
    if (line.trim() === "") return;
    let parsed: Record<string, unknown> | undefined;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      output.push(line);
      return;
    }
    logs.push(parsed);
    for (const waiter of waiters.filter((candidate) => candidate.message === parsed.msg)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(parsed);
    }
  };
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = "";
    stream.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      lines.forEach(onLine);
    });
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const signalAndWait = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return await exited;
  };
  return {
    pid: child.pid ?? -1,
    exited,
    logs: () => logs,
    output: () => output,
    waitForLog: (message, timeoutMs = 30_000) => {
      const seen = logs.find((line) => line.msg === message);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no "${message}" log line in ${timeoutMs} ms:\n${[...output, ...logs.map((l) => JSON.stringify(l))].join("\n")}`,
              ),
            ),
          timeoutMs,
        );
        waiters.push({
          message,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    },
    kill9: async () => {
      // A frozen process must be resumed for SIGKILL to be delivered promptly on every kernel.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGCONT");
      await signalAndWait("SIGKILL");
    },
    signal: (signal) => {
      child.kill(signal);
    },
    stop: () => signalAndWait("SIGTERM"),
  };
}
