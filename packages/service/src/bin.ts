#!/usr/bin/env node
/**
 * `abas-service` (the README's `npm start`): the local ledger with the program deployed, the
 * indexer on SQLite and the REST API, in one process; prints where everything is; Ctrl-C stops
 * it cleanly and the next start resumes with the same data.
 */
import { readFileSync } from "node:fs";

import { portInUseMessage } from "@abas/ledger";

import { loadServiceConfig, ServiceConfigError } from "./config.js";
import { commandSettings, describeRunningService, waitForStopSignal } from "./running-service-text.js";
import { startService } from "./start-service.js";

/** The usage: no arguments; the settings, with their defaults, are those of .env.example. */
function usage(): string {
  const settings = readFileSync(new URL("../.env.example", import.meta.url), "utf8");
  return `Usage: npm start (abas-service), with no arguments: every setting is an environment variable.\n\n${settings}`;
}

async function main(args: readonly string[]): Promise<number> {
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    process.stdout.write(usage());
    return 0;
  }
  if (args.length > 0) {
    process.stderr.write(
      `abas-service: unknown argument ${args[0]}; settings are environment variables (see npm start -- --help)\n`,
    );
    return 2;
  }
  let config;
  try {
    config = loadServiceConfig(process.env);
  } catch (error) {
    if (!(error instanceof ServiceConfigError)) throw error;
    process.stderr.write(`abas-service: ${error.message}\n`);
    return 2;
  }
  let service;
  try {
    service = await startService(config);
  } catch (error) {
    const message = portInUseMessage(
      error,
      new Map([
        [config.ledgerRpcPort, "LEDGER_RPC_PORT=<port>"],
        [config.ledgerWsPort, "LEDGER_WS_PORT=<port>"],
        [config.apiPort, "PORT=<port>"],
      ]),
    );
    if (message === undefined) throw error;
    process.stderr.write(`abas-service: ${message}\n`);
    return 1;
  }
  const settings = commandSettings(service, config, process.env);
  const nextSteps = [
    `  create an API key:   sign in with a Solana wallet at ${service.webUrl}/app/api-keys, or headless:`,
    `                       ${settings.keys}npm run keys -- create --name my-key`,
    `  then:                curl -H "Authorization: Bearer <key>" ${service.apiUrl}/attestations`,
    `  attest from code:    ${settings.client}npm run demo, or see packages/sdk/README.md`,
  ];
  process.stdout.write(`${describeRunningService(service, config, nextSteps)}\n`);
  await waitForStopSignal((line) => process.stderr.write(`${line}\n`));
  await service.stop();
  process.stdout.write("stopped\n");
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`abas-service: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
