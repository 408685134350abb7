#!/usr/bin/env node
/**
 * `abas-ledger`: runs the local ledger until Ctrl-C or SIGTERM. The banner on stdout gives the
 * URLs (scripts read it; see spawnLedgerProcess); logs go to stderr.
 */
import { ConfigError, parseCommandLine, USAGE } from "./config.js";
import { createLogger } from "./logger.js";
import { portInUseMessage } from "./port-in-use.js";
import { startLedger, type RunningLedger } from "./start-ledger.js";

export function formatBanner(ledger: RunningLedger): string {
  return [
    "ABAS ledger ready",
    `  RPC URL:     ${ledger.rpcUrl}`,
    `  WS URL:      ${ledger.wsUrl}`,
    `  Program id:  ${ledger.programId}`,
    `  Data dir:    ${ledger.dataDir}`,
    `  Faucet:      ${ledger.faucet}`,
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  let commandLine;
  try {
    // `npm start -w @abas/ledger` runs in the package directory; INIT_CWD is where it was typed.
    commandLine = parseCommandLine(process.argv.slice(2), process.env, process.env.INIT_CWD ?? process.cwd());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`abas-ledger: ${error.message}\n`);
    process.exitCode = 2;
    return;
  }
  if (commandLine.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const logger = createLogger(commandLine.config.logLevel);
  let ledger: RunningLedger;
  try {
    ledger = await startLedger({
      ...commandLine.config,
      logger,
      onTakenOver: (error) => {
        process.stderr.write(`abas-ledger: ${error.message}\n`);
        process.exit(1);
      },
    });
  } catch (error) {
    const { rpcPort, wsPort } = commandLine.config;
    const message = portInUseMessage(
      error,
      new Map([
        [rpcPort, "--rpc-port <port> (LEDGER_RPC_PORT)"],
        [wsPort, "--ws-port <port> (LEDGER_WS_PORT)"],
      ]),
    );
    if (message === undefined) throw error;
    process.stderr.write(`abas-ledger: ${message}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(formatBanner(ledger));

  let stopping = false;
  const shutdown = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info("stopping", { reason });
    ledger.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("stop failed", { reason: String(error) });
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  // Started by spawnLedgerProcess: stop when the parent goes away, so no ledger is left behind.
  if (process.send !== undefined) process.on("disconnect", () => shutdown("parent process exited"));
}

main().catch((error: unknown) => {
  process.stderr.write(`abas-ledger: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
