#!/usr/bin/env node
/**
 * `abas-service` (the README's `npm start`): the local ledger with the program deployed, the
 * indexer on SQLite and the REST API, in one process; prints where everything is; Ctrl-C stops
 * it cleanly and the next start resumes with the same data.
 */
import { loadServiceConfig, ServiceConfigError } from "./config.js";
import { startService } from "./start-service.js";

async function main(): Promise<number> {
  let config;
  try {
    config = loadServiceConfig(process.env);
  } catch (error) {
    if (!(error instanceof ServiceConfigError)) throw error;
    process.stderr.write(`abas-service: ${error.message}\n`);
    return 2;
  }
  const service = await startService(config);
  const lines = [
    `ABAS is running (data in ${config.dataDir}, database ${service.database})`,
    `  ledger RPC   ${service.rpcUrl}${service.wsUrl ? `   WebSocket ${service.wsUrl}` : ""}`,
    `  program      ${service.programId ?? "(PROGRAM_ID not set: the local ledger's)"}`,
    `  REST API     ${service.apiUrl}   health: ${service.apiUrl}/health   OpenAPI: ${service.apiUrl}/openapi.json`,
    `  web app      ${service.webUrl}/app   (verify a payload: ${service.webUrl}/app/verify)`,
    `  share links  ${service.webUrl}/api/actions/verify?tx=<signature>   (Solana Actions; rules: ${service.webUrl}/actions.json)`,
    "",
    `  create an API key:   sign in with a Solana wallet at ${service.webUrl}/app/api-keys, or headless:`,
    "                       npm run keys -- create --name my-key",
    `  then:                curl -H "Authorization: Bearer <key>" ${service.apiUrl}/attestations`,
    "  attest from code:    see packages/sdk/README.md (npm run example -w @abas/sdk)",
    "",
    "Ctrl-C stops; the next start resumes with the same data.",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);

  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.stderr.write(`${signal}: stopping\n`);
      process.once(signal, () => process.exit(1)); // a second signal: stop at once
      resolve();
    };
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
  });
  await service.stop();
  process.stdout.write("stopped\n");
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`abas-service: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
