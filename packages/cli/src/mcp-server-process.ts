/**
 * An MCP client's stdio transport to a server run as a child process, started as the MCP SDK's
 * hosts start one (the SDK's default environment plus the entry's `env`; the server's stderr on
 * ours). Unlike the SDK's transport, `close` lets the server finish: it closes the server's stdin
 * and waits for it to exit (`abas-mcp-proxy` sends the calls it recorded, then exits), sending
 * SIGTERM only after `exitGraceMs`.
 */
import { spawn, type ChildProcess } from "node:child_process";

import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

import type { ServerEntry } from "./mcp-config.js";
import { CommandFailure } from "./usage-error.js";

export type ExitStatus = Readonly<{ code: number | null; signal: NodeJS.Signals | null }>;

export type ServerProcessOptions = Readonly<{
  /** How long `close` waits for the server to exit once its stdin is closed. */
  exitGraceMs: number;
  /** Told once when the server has not exited a second after its stdin closed. */
  onSlowExit(graceMs: number): void;
}>;

/** After SIGTERM, how long the server has before SIGKILL. */
const TERM_GRACE_MS = 5_000;

export class ServerProcessTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  readonly #entry: ServerEntry;
  readonly #options: ServerProcessOptions;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  #exit: ExitStatus | undefined;
  #exited: Promise<void> = Promise.resolve();

  constructor(entry: ServerEntry, options: ServerProcessOptions) {
    this.#entry = entry;
    this.#options = options;
  }

  /** How the server ended, if it ends within `ms` (a request that failed as it exited, say). */
  async exitStatusWithin(ms: number): Promise<ExitStatus | undefined> {
    await this.#exitsWithin(ms);
    return this.#exit;
  }

  async start(): Promise<void> {
    const { name, command, args, env, cwd } = this.#entry;
    const child = spawn(command, [...args], {
      env: { ...getDefaultEnvironment(), ...env },
      cwd,
      stdio: ["pipe", "pipe", "inherit"],
    });
    this.#child = child;
    this.#exited = new Promise((resolve) =>
      child.once("close", (code, signal) => {
        this.#exit = { code, signal };
        resolve();
        this.onclose?.();
      }),
    );
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) =>
        reject(new CommandFailure(`cannot start the server "${name}" (${command}): ${error.message}`)),
      );
    });
    child.stdin!.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("data", (chunk: Buffer) => {
      try {
        this.#buffer.append(chunk);
      } catch (error) {
        this.onerror?.(error as Error);
        return;
      }
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (error) {
          // A line that is not a JSON-RPC message: reported, and the next line read.
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || !stdin.writable)
      throw new Error("the server's stdin is closed");
    await new Promise<void>((resolve, reject) =>
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())),
    );
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined || this.#exit !== undefined) return;
    child.stdin!.end();
    const slow = setTimeout(() => this.#options.onSlowExit(this.#options.exitGraceMs), 1_000);
    try {
      if (await this.#exitsWithin(this.#options.exitGraceMs)) return;
      child.kill("SIGTERM");
      if (await this.#exitsWithin(TERM_GRACE_MS)) return;
      child.kill("SIGKILL");
      await this.#exited;
    } finally {
      clearTimeout(slow);
    }
  }

  async #exitsWithin(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    try {
      return await Promise.race([this.#exited.then(() => true as const), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }
}
