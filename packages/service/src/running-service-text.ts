/** What a started service tells its user, and how it waits to be stopped: used by `npm start` (abas-service). */
import type { ServiceConfig } from "./config.js";
import type { RunningService } from "./start-service.js";

/** Where everything is, then `nextSteps`, then how to stop. */
export function describeRunningService(
  service: RunningService,
  config: ServiceConfig,
  nextSteps: readonly string[],
): string {
  return [
    `ABAS is running (data in ${config.dataDir}, database ${service.database})`,
    `  ledger RPC   ${service.rpcUrl}${service.wsUrl ? `   WebSocket ${service.wsUrl}` : ""}`,
    `  program      ${service.programId ?? "(PROGRAM_ID not set: the local ledger's)"}`,
    `  REST API     ${service.apiUrl}   health: ${service.apiUrl}/health   OpenAPI: ${service.apiUrl}/openapi.json`,
    `  web app      ${service.webUrl}/app   (verify a payload: ${service.webUrl}/app/verify)`,
    `  share links  ${service.webUrl}/api/actions/verify?tx=<signature>   (Solana Actions; rules: ${service.webUrl}/actions.json)`,
    "",
    ...nextSteps,
    "",
    "Ctrl-C stops; the next start resumes with the same data.",
  ].join("\n");
}

/** Resolves on the first SIGINT or SIGTERM; a second one ends the process at once. */
export function waitForStopSignal(log: (line: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      log(`${signal}: stopping`);
      process.once(signal, () => process.exit(1));
      resolve();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
}
