/**
 * An MCP client's stdio transport to a server run as a child process, started as the MCP SDK's
 * hosts start one (the SDK's default environment plus the entry's `env`; the server's stderr on
 * ours). Unlike the SDK's transport, `close` lets the server finish: it closes the server's stdin
 * and waits for it to exit (`abas-mcp-proxy` sends the calls it recorded, then exits), sending
 * SIGTERM only after `exitGraceMs`.
 */
import { spawn, type ChildProcess } from "node:child_process";

import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
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
/**
 * Once the server has exited, how long its pipes stay open for what it wrote last: a process it
 * started may hold them open for good.
 */
const PIPES_AFTER_EXIT_MS = 500;

/** The longest line read, as the MCP SDK's own stdio transport reads them. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/** A line the server wrote, as a message names it. */
const excerpt = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

export class ServerProcessTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  readonly #entry: ServerEntry;
  readonly #options: ServerProcessOptions;
  /** The start of the line being read. */
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #child: ChildProcess | undefined;
  #exit: ExitStatus | undefined;
  /** The server's process has ended. */
  #exited: Promise<void> = Promise.resolve();
  /** And its pipes are closed: nothing more comes from it. */
  #pipesClosed: Promise<void> = Promise.resolve();
  #closed = false;
  #problem: string | undefined;

  constructor(entry: ServerEntry, options: ServerProcessOptions) {
    this.#entry = entry;
    this.#options = options;
  }

  /** The last thing the server wrote that is not a message the client reads, if any. */
  get problem(): string | undefined {
    return this.#problem;
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
      child.once("exit", (code, signal) => {
        this.#exit = { code, signal };
        resolve();
        setTimeout(() => {
          child.stdout?.destroy();
          child.stdin?.destroy();
        }, PIPES_AFTER_EXIT_MS);
      }),
    );
    this.#pipesClosed = new Promise((resolve) =>
      child.once("close", () => {
        resolve();
        this.#connectionClosed();
      }),
    );
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", (error) => {
        // Not started: there is no process to close.
        this.#child = undefined;
        reject(new CommandFailure(`cannot start the server "${name}" (${command}): ${error.message}`));
      });
    });
    child.stdin!.on("error", (error) => this.onerror?.(error));
    child.stdout!.on("data", (chunk: Buffer) => this.#read(chunk));
  }

  /** Reads the server's lines: each a JSON-RPC message for the client. */
  #read(chunk: Buffer): void {
    if (this.#closed) return;
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end >= 0; end = chunk.indexOf(0x0a, start)) {
      this.#partial.push(chunk.subarray(start, end));
      const line = Buffer.concat(this.#partial).toString("utf8").replace(/\r$/, "");
      this.#partial = [];
      this.#partialBytes = 0;
      start = end + 1;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch (error) {
        // Named should a request fail; the next line is read.
        this.#problem = `a line that is not a JSON-RPC message: ${excerpt(line)}`;
        this.onerror?.(error as Error);
        continue;
      }
      this.onmessage?.(message);
    }
    this.#partial.push(chunk.subarray(start));
    this.#partialBytes += chunk.length - start;
    if (this.#partialBytes > MAX_LINE_BYTES) {
      // The requests fail now rather than time out.
      this.#problem = `a line over ${MAX_LINE_BYTES / 1024 / 1024} MB, which the MCP client does not read`;
      this.#partial = [];
      this.#connectionClosed();
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === undefined || stdin === null || !stdin.writable)
      throw new Error("the server's stdin is closed");
    await new Promise<void>((resolve, reject) =>
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve())),
    );
  }

  /** Tells the client once that the connection ended: its requests waiting fail. */
  #connectionClosed(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (child === undefined) return;
    if (this.#exit === undefined) {
      child.stdin!.end();
      const slow = setTimeout(() => this.#options.onSlowExit(this.#options.exitGraceMs), 1_000);
      try {
        if (!(await this.#exitsWithin(this.#options.exitGraceMs))) {
          child.kill("SIGTERM");
          if (!(await this.#exitsWithin(TERM_GRACE_MS))) child.kill("SIGKILL");
        }
      } finally {
        clearTimeout(slow);
      }
    }
    await this.#pipesClosed;
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
