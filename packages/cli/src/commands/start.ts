/** `abas start`: the whole service in this process, exactly as `npm start`. */
import {
  describeRunningService,
  loadServiceConfig,
  ServiceConfigError,
  startService,
  waitForStopSignal,
} from "@abas/service";

import type { CommandContext } from "../cli-io.js";
import { assertNoPositionals, GLOBAL_OPTIONS_HELP, parseOptions } from "../parse-options.js";
import { UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage: abas start

Starts the local ledger with the ABAS program, the indexer, the REST API and the web app in one
process (the same as npm start) and prints their addresses; Ctrl-C stops everything.
Settings: DATA_DIR, PORT, LEDGER_RPC_PORT, LEDGER_WS_PORT, PUBLIC_URL, LOG_LEVEL, DATABASE_URL;
--rpc-url (RPC_URL) follows another ledger instead of running the local one.

${GLOBAL_OPTIONS_HELP}`;

async function run(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {});
  assertNoPositionals(positionals);
  let config;
  try {
    config = loadServiceConfig({
      ...env,
      ...(values["rpc-url"] === undefined ? {} : { RPC_URL: values["rpc-url"] }),
      ...(values["program-id"] === undefined ? {} : { PROGRAM_ID: values["program-id"] }),
    });
  } catch (error) {
    if (error instanceof ServiceConfigError) throw new UsageError(error.message);
    throw error;
  }
  const service = await startService(config);
  io.out(
    describeRunningService(service, config, [
      "  next: abas keygen, abas agent register, abas attest (see docs/cli.md); abas status",
    ]),
  );
  await waitForStopSignal(io.err);
  await service.stop();
  io.out("stopped");
  return 0;
}

export const startCommand: Command = {
  name: "start",
  summary: "run the service: ledger, indexer, REST API, web app (npm start)",
  usage: USAGE,
  run,
};
