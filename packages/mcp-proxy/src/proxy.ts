/**
 * The proxy itself: starts the MCP server, forwards each message line between the host and the
 * server byte for byte, and records every completed `tools/call` with the attestor before the
 * response reaches the host.
 */
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import type { Readable, Writable } from "node:stream";

import {
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_SDK__ATTESTOR_QUEUE_CORRUPT,
  ABAS_SDK__ATTESTOR_QUEUE_LOCKED,
  ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE,
  ABAS_SDK__INVALID_PROXY_CONFIG,
  ABAS_SDK__MCP_SERVER_NOT_STARTED,
  ABAS_SDK__TOOL_CALL_NOT_RECORDED,
  AbasError,
  getAbasErrorCodeName,
  isAbasError,
} from "@abas/errors";
import { canonicalize, hashActionNow, loadKeypair } from "@abas/sdk";
import { makeFolders, syncDirectory } from "@abas/sdk/attestor";

import { describeError } from "./describe-error.js";
import { sendLeftBehind } from "./left-behind.js";
import { arrayElementRanges, MessageLines, withoutElements } from "./message-lines.js";
import { ledgerAddressForLog } from "./ledger-address.js";
import { agentProblem, ledgerProblem } from "./ledger-probe.js";
import { proxyFolders, type ProxyConfig } from "./proxy-config.js";
import { openProxyQueue, type ProxyQueue, type ProxyQueueSettings } from "./proxy-queue.js";
import { removeAbandonedAsideFiles } from "./receipts-folder.js";
import { ToolCallTracker, type ToolCallAction } from "./tool-calls.js";

export type ProxyStreams = Readonly<{
  /** From the host. */
  input: Readable;
  /** To the host: protocol only. */
  output: Writable;
  /** Logs. */
  log: (line: string) => void;
  /** The server's process: `stop` passes it a signal, then SIGKILL if it has not exited in time. */
  onServerStarted?: (server: { pid: number; stop(signal: NodeJS.Signals): void }) => void;
  onServerExited?: () => void;
}>;

/** How the server ended: the proxy ends the same way. */
export type ServerExit = Readonly<{ code: number | null; signal: NodeJS.Signals | null }>;

/** After the host closes stdin, how long the server gets to exit before SIGTERM (the MCP shutdown sequence). */
const SERVER_EXIT_GRACE_MS = 5_000;
/**
 * After SIGTERM (the proxy's own, or the host's passed on), how long the server gets before SIGKILL:
 * less than the 2 s the official client gives the proxy after its SIGTERM, so that a server that
 * ignores SIGTERM is killed before the proxy is, as it would be without the proxy in between.
 */
export const SERVER_KILL_GRACE_MS = 1_500;

/**
 * A JSON-RPC error naming `ABAS_SDK__TOOL_CALL_NOT_RECORDED`: what the host gets instead of what the
 * proxy could not record, under `id` with the JSON-RPC `code`.
 */
function notRecordedResponse(
  id: string | number | null,
  code: number,
  tool: string,
  reason: string,
): Record<string, unknown> {
  const named = new AbasError(ABAS_SDK__TOOL_CALL_NOT_RECORDED, { tool, reason });
  return {
    jsonrpc: "2.0",
    id,
    error: {
      code,
      message: named.message,
      data: {
        code: ABAS_SDK__TOOL_CALL_NOT_RECORDED,
        codeName: getAbasErrorCodeName(ABAS_SDK__TOOL_CALL_NOT_RECORDED),
      },
    },
  };
}

/** A line of whitespace only: no message, forwarded as it is. */
function isBlank(line: Buffer): boolean {
  return line.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a);
}

/**
 * What the host gets instead of forwarding a line that is not JSON: JSON-RPC's parse error (id
 * null: the line's own id cannot be read for sure).
 */
const UNREADABLE_LINE_RESPONSE = Buffer.from(
  `${JSON.stringify(
    notRecordedResponse(
      null,
      -32700,
      "(in a line that is not JSON)",
      "abas-mcp-proxy forwards JSON messages only, so the server did not get this line",
    ),
  )}\n`,
);

/**
 * The server's line with the responses of the calls that could not be recorded (by their index in
 * the line) replaced by errors: in a batch, those elements only, the others' bytes as the server
 * sent them.
 */
function withNotRecorded(line: Buffer, failures: ReadonlyMap<number, Record<string, unknown>>): Buffer {
  const ranges = arrayElementRanges(line);
  if (ranges === undefined) return Buffer.from(`${JSON.stringify(failures.get(0))}\n`);
  const pieces: Buffer[] = [];
  let copied = 0;
  ranges.forEach(([start, end], index) => {
    const failure = failures.get(index);
    if (failure === undefined) return;
    pieces.push(line.subarray(copied, start), Buffer.from(JSON.stringify(failure)));
    copied = end;
  });
  pieces.push(line.subarray(copied));
  return Buffer.concat(pieces);
}

/**
 * Makes the receipts folder if it is missing (returns the first folder made); one that cannot be
 * made or is not a folder is `ABAS_SDK__INVALID_PROXY_CONFIG` naming the setting.
 */
function openReceiptsFolder(receiptsDir: string): string | undefined {
  try {
    return makeFolders(receiptsDir);
  } catch (error) {
    throw new AbasError(ABAS_SDK__INVALID_PROXY_CONFIG, {
      problems: `--receipts-dir (ABAS_RECEIPTS_DIR) ${receiptsDir} cannot be used: ${describeError(error)}`,
    });
  }
}

/** The failures that concern one queue folder: the proxy takes the next default folder instead. */
const FOLDER_FAILURES = [
  ABAS_SDK__ATTESTOR_QUEUE_LOCKED,
  ABAS_SDK__ATTESTOR_QUEUE_CORRUPT,
  ABAS_SDK__ATTESTOR_QUEUE_UNAVAILABLE,
] as const;

/**
 * The first of `queueDirs` this proxy can take: several proxies of one server (the same server in
 * two hosts) each hold a folder of their own, and a folder that cannot be used (damaged, not
 * writable) is named and passed over. The last folder's failure is thrown.
 */
async function openFirstFreeQueue(
  queueDirs: readonly string[],
  settings: ProxyQueueSettings,
): Promise<ProxyQueue> {
  for (const [index, queueDir] of queueDirs.entries()) {
    try {
      return await openProxyQueue(queueDir, settings);
    } catch (error) {
      if (index === queueDirs.length - 1 || !FOLDER_FAILURES.some((code) => isAbasError(error, code)))
        throw error;
      if (!isAbasError(error, ABAS_SDK__ATTESTOR_QUEUE_LOCKED))
        settings.log(`cannot use the queue folder ${queueDir}: ${describeError(error)}; taking the next one`);
    }
  }
  throw new Error("openFirstFreeQueue: no queue folder given");
}

export async function runProxy(config: ProxyConfig, streams: ProxyStreams): Promise<ServerExit> {
  const { log } = streams;
  // Read here so that a bad key file names the proxy's own setting.
  const [agent, operator] = await Promise.all([
    loadKeypair(config.agentKeypair, "--agent-keypair (ABAS_AGENT_KEYPAIR)"),
    loadKeypair(config.operatorKeypair, "--operator-keypair (ABAS_OPERATOR_KEYPAIR)"),
  ]);
  const { queueDirs, receiptsDir } = proxyFolders(agent.address, config);
  const created = openReceiptsFolder(receiptsDir);
  if (config.durability === "fsync") {
    // The receipts folder (and the folders made for it) must outlive a power loss too: each is
    // flushed in its parent. A file system that cannot flush a folder stops the proxy here, not
    // at every receipt.
    const top = dirname(created ?? receiptsDir);
    for (let dir = receiptsDir; ; dir = dirname(dir)) {
      syncDirectory(dir);
      if (dir === top || dir === dirname(dir)) break;
    }
  }
  removeAbandonedAsideFiles(receiptsDir);
  const settings = { config, agent, operator, receiptsDir, log };
  const own = await openFirstFreeQueue(queueDirs, settings);
  const { queueDir, attestor, calls } = own;
  const ledger = ledgerAddressForLog(config.rpcUrl);
  log(`agent ${agent.address}, ledger ${ledger}, queue ${queueDir}, receipts ${receiptsDir}`);
  void ledgerProblem(config.rpcUrl).then(async (problem) => {
    if (problem !== undefined) {
      log(
        `the ledger at ${ledger} does not answer (${problem}): tool calls are kept in ${queueDir} and sent once it does; check --rpc-url (ABAS_RPC_URL)`,
      );
      return;
    }
    const unknownAgent = await agentProblem(config.rpcUrl, config.programId, agent);
    if (unknownAgent !== undefined) log(unknownAgent);
  });

  const leftBehind = sendLeftBehind(
    queueDirs.filter((dir) => dir !== queueDir),
    settings,
  );

  const tracker = new ToolCallTracker({ warn: log });
  const record = (call: ToolCallAction): void => {
    const actionHash = hashActionNow(canonicalize(call));
    calls.append(actionHash, call);
    let receipt: Promise<unknown>;
    try {
      ({ receipt } = attestor.record({
        actionType: "ToolCall",
        actionHash,
        privacyMode: config.privacyMode,
      }));
    } catch (error) {
      calls.forget(actionHash);
      throw error;
    }
    receipt.catch((error: unknown) => {
      if (isAbasError(error, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED)) {
        // Refused for good: the agent's policy does not allow ToolCall actions.
        calls.forget(actionHash);
        log(`tool ${call.tool}: ${describeError(error)}; the call is not recorded`);
      } else {
        log(
          `tool ${call.tool}: ${describeError(error)}; the call stays in ${queueDir}, sent again while the proxy runs and at the next start`,
        );
      }
    });
  };

  const server = spawn(config.command, config.args, { stdio: ["pipe", "pipe", "inherit"] });
  const stopServer = (signal: NodeJS.Signals): void => {
    server.kill(signal);
    setTimeout(() => {
      if (server.exitCode === null && server.signalCode === null) {
        log(`the server did not exit within ${SERVER_KILL_GRACE_MS} ms of ${signal}: SIGKILL`);
        server.kill("SIGKILL");
      }
    }, SERVER_KILL_GRACE_MS).unref();
  };
  if (server.pid !== undefined) streams.onServerStarted?.({ pid: server.pid, stop: stopServer });
  const exited = new Promise<ServerExit>((resolve, reject) => {
    server.once("error", (error) =>
      reject(
        new AbasError(ABAS_SDK__MCP_SERVER_NOT_STARTED, {
          command: [config.command, ...config.args].join(" "),
          reason: error.message,
        }),
      ),
    );
    // "close": the server has exited and its stdout is drained, so every response went through.
    server.once("close", (code, signal) => resolve({ code, signal }));
  });

  // Settled once the last bytes written to the host have left the process (callbacks of a stream's
  // writes run in order) or the host has gone: the proxy exits only then, since the bytes a pipe
  // has not taken yet are lost with the process.
  let forwarded = Promise.resolve();
  const forward = (bytes: Buffer): boolean => {
    let written!: boolean;
    forwarded = new Promise((settled) => (written = streams.output.write(bytes, () => settled())));
    return written;
  };

  // Asked before each tools/call is forwarded: a call the attestor cannot take (its queue is full,
  // its sender stopped) is not run at all.
  const refusal = (): string | undefined => {
    try {
      attestor.assertAccepting();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };

  // Host -> server: every line as it came, but a line that is not JSON (a call in it could not be
  // recorded, and a server may read it all the same: NaN, say), which the host gets an error for,
  // and a tools/call the attestor cannot take, which the host gets ABAS_SDK__TOOL_CALL_NOT_RECORDED
  // for (a batch goes on without it).
  const fromHost = new MessageLines();
  const noteFromHost = (line: Buffer): Buffer | undefined => {
    if (isBlank(line)) return line;
    let noted: ReturnType<ToolCallTracker["fromHost"]>;
    try {
      noted = tracker.fromHost(line, new Date(), refusal);
    } catch (error) {
      log(
        `a message from the host could not be read for recording (${describeError(error)}): forwarded as it came`,
      );
      return line;
    }
    if (noted === undefined) {
      log(
        `a line from the host is not JSON (${line.length} bytes): not forwarded, the host gets a parse error`,
      );
      forward(UNREADABLE_LINE_RESPONSE);
      return undefined;
    }
    if (noted.refused.length === 0) return line;
    const answers = noted.refused.map(({ id, tool, reason }) => {
      log(`tool ${tool}: not forwarded, since it could not be recorded: ${reason}`);
      return notRecordedResponse(id, -32603, tool, reason);
    });
    forward(Buffer.from(`${JSON.stringify(noted.batch ? answers : answers[0])}\n`));
    return withoutElements(line, new Set(noted.refused.map(({ index }) => index)));
  };
  streams.input.on("data", (chunk: Buffer) => {
    for (const line of fromHost.push(chunk)) {
      const onward = noteFromHost(line);
      if (onward !== undefined && !server.stdin.write(onward)) streams.input.pause();
    }
  });
  server.stdin.on("drain", () => streams.input.resume());
  server.stdin.on("error", () => {}); // the server exited first: its exit is what counts
  streams.input.once("end", () => {
    const rest = fromHost.rest();
    const onward = rest === undefined ? undefined : noteFromHost(rest);
    if (onward !== undefined) server.stdin.write(onward);
    server.stdin.end();
    setTimeout(() => stopServer("SIGTERM"), SERVER_EXIT_GRACE_MS).unref();
  });

  // Server -> host: a response that completes a tools/call is recorded first, then forwarded.
  const recorded = (line: Buffer): Buffer => {
    let completed: ReturnType<ToolCallTracker["fromServer"]>;
    try {
      completed = tracker.fromServer(line);
    } catch (error) {
      log(
        `a line from the server could not be read for recording (${describeError(error)}): forwarded as it came; a tools/call it answers is not recorded`,
      );
      return line;
    }
    const failures = new Map<number, Record<string, unknown>>();
    for (const { action, index, unrecordable } of completed) {
      try {
        if (unrecordable !== undefined) throw new Error(`the server's response: ${unrecordable}`);
        record(action);
      } catch (error) {
        log(`tool ${action.tool}: not recorded: ${describeError(error)}`);
        failures.set(
          index,
          notRecordedResponse(
            action.callId,
            -32603,
            action.tool,
            error instanceof Error ? error.message : String(error),
          ),
        );
      }
    }
    return failures.size === 0 ? line : withNotRecorded(line, failures);
  };
  const fromServer = new MessageLines();
  server.stdout.on("data", (chunk: Buffer) => {
    for (const line of fromServer.push(chunk)) {
      if (!forward(recorded(line))) server.stdout.pause();
    }
  });
  streams.output.on("drain", () => server.stdout.resume());
  server.stdout.once("end", () => {
    // The last bytes without a newline: a host's reader may take them as a message too.
    const rest = fromServer.rest();
    if (rest !== undefined) forward(recorded(rest));
  });

  let exit: ServerExit;
  try {
    exit = await exited;
  } finally {
    streams.onServerExited?.();
    // Every recorded call is on disk already; this sends what is queued and saves the receipts.
    leftBehind.stop();
    await own.close();
  }
  await forwarded;
  return exit;
}
