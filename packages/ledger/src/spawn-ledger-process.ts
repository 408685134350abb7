/**
 * Starts `abas-ledger` as a separate process (what other packages' tests use): free ports,
 * a given data directory, resolved once the banner is printed and getHealth answers.
 */
import { spawn } from "node:child_process";
import type { Socket } from "node:net";

import type { Address } from "@solana/kit";

import type { LogLevel } from "./logger.js";
import { LEDGER_NODE_ARGS } from "./package-files.js";

export interface SpawnLedgerOptions {
  readonly dataDir: string;
  readonly slotMs?: number;
  readonly reset?: boolean;
  readonly programPath?: string;
  readonly snapshotEvery?: number;
  /** 0 (the default) picks free ports. */
  readonly rpcPort?: number;
  readonly wsPort?: number;
  /** The child's LOG_LEVEL (default "warn"). */
  readonly logLevel?: LogLevel;
  /** Each stderr line of the child (its log). */
  readonly onLogLine?: (line: string) => void;
  readonly startTimeoutMs?: number;
}

export interface LedgerProcess {
  readonly rpcUrl: string;
  readonly wsUrl: string;
  readonly programId: Address;
  readonly faucet: Address;
  readonly dataDir: string;
  readonly pid: number;
  /** SIGTERM, then waits for the exit (a clean shutdown with a final snapshot). */
  stop(): Promise<void>;
  /** SIGKILL, then waits for the exit: a crash at an arbitrary moment. */
  kill9(): Promise<void>;
  /** The last lines the child logged, for error messages. */
  recentLogs(): string;
  /** Settles when the process has exited, with its exit code (null when a signal ended it). */
  readonly exited: Promise<number | null>;
}

const BANNER_FIELDS = {
  rpcUrl: /RPC URL:\s+(\S+)/,
  wsUrl: /WS URL:\s+(\S+)/,
  programId: /Program id:\s+(\S+)/,
  faucet: /Faucet:\s+(\S+)/,
} as const;

const RECENT_LOG_LINES = 50;

async function waitForHealth(rpcUrl: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const response = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getHealth" }),
      });
      const body = (await response.json()) as { result?: unknown };
      if (body.result === "ok") return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`the ledger at ${rpcUrl} did not become healthy`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export async function spawnLedgerProcess(options: SpawnLedgerOptions): Promise<LedgerProcess> {
  const args = [
    ...LEDGER_NODE_ARGS,
    "--data-dir",
    options.dataDir,
    "--rpc-port",
    String(options.rpcPort ?? 0),
    "--ws-port",
    String(options.wsPort ?? 0),
  ];
  if (options.slotMs !== undefined) args.push("--slot-ms", String(options.slotMs));
  if (options.programPath !== undefined) args.push("--program", options.programPath);
  if (options.snapshotEvery !== undefined) args.push("--snapshot-every", String(options.snapshotEvery));
  if (options.reset === true) args.push("--reset");

  const child = spawn(process.execPath, args, {
    // The IPC channel lets the child notice when this process dies and stop with it.
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: { ...process.env, LOG_LEVEL: options.logLevel ?? "warn" },
  });
  // Not keeping this process alive: a test that forgets stop() still ends (and the child with it).
  child.unref();
  child.channel?.unref();
  const { stdout, stderr } = child;
  if (stdout === null || stderr === null) throw new Error("the ledger process has no output pipes");
  for (const pipe of [stdout, stderr]) (pipe as Socket).unref();

  const recent: string[] = [];
  let stderrBuffer = "";
  stderr.on("data", (chunk: Buffer) => {
    stderrBuffer += chunk.toString("utf8");
    const lines = stderrBuffer.split("\n");
    stderrBuffer = lines.pop() ?? "";
    for (const line of lines) {
      recent.push(line);
      if (recent.length > RECENT_LOG_LINES) recent.shift();
      options.onLogLine?.(line);
    }
  });
  const recentLogs = (): string => [...recent, stderrBuffer].join("\n").trim();
  // "close", not "exit": by then stderr is read to its end, so the last log line (the reason) is kept.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));

  const banner = await new Promise<Record<keyof typeof BANNER_FIELDS, string>>((resolve, reject) => {
    let printed = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the ledger did not start in time\n${recentLogs()}`));
    }, options.startTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer): void => {
      printed += chunk.toString("utf8");
      const found = Object.fromEntries(
        Object.entries(BANNER_FIELDS).map(([key, pattern]) => [key, pattern.exec(printed)?.[1]]),
      );
      if (Object.values(found).every((value) => value !== undefined)) {
        clearTimeout(timer);
        stdout.off("data", onData);
        stdout.resume();
        resolve(found as Record<keyof typeof BANNER_FIELDS, string>);
      }
    };
    stdout.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the ledger exited with code ${code} before it was ready\n${recentLogs()}`));
    });
  });
  try {
    await waitForHealth(banner.rpcUrl, Date.now() + (options.startTimeoutMs ?? 30_000));
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${recentLogs()}`, { cause: error });
  }

  const signalAndWait = async (signal: NodeJS.Signals): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      // Keep this process alive until the child has gone.
      child.ref();
      child.kill(signal);
    }
    await exited;
  };
  return {
    rpcUrl: banner.rpcUrl,
    wsUrl: banner.wsUrl,
    programId: banner.programId as Address,
    faucet: banner.faucet as Address,
    dataDir: options.dataDir,
    pid: child.pid ?? -1,
    stop: () => signalAndWait("SIGTERM"),
    kill9: () => signalAndWait("SIGKILL"),
    recentLogs,
    exited,
  };
}
