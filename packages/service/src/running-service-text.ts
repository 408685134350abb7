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
    `  ledger RPC   ${service.rpcUrl}   WebSocket ${service.wsUrl}`,
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

/** `value` as one word of a POSIX shell: as it is when that is safe, otherwise single-quoted. */
function shellWord(value: string): string {
  return /^[\w./:@%+=,-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** A database URL with its password, if any, as `<password>` (this text may go to a log). */
function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password === "") return url;
  return `${parsed.protocol}//${parsed.username}:<password>@${parsed.host}${parsed.pathname}${parsed.search}`;
}

/**
 * What a command run in another terminal needs to reach this service, as `NAME=value ` words to
 * put before it: nothing when the service runs on its defaults. `keys`: where the keys CLI finds
 * the database; `client`: where the demo and the SDK's examples find the ledger and the web app.
 */
export function commandSettings(
  service: Pick<RunningService, "rpcUrl" | "webUrl">,
  config: ServiceConfig,
  env: NodeJS.ProcessEnv,
): { keys: string; client: string } {
  const set = (name: string) => env[name] !== undefined && env[name] !== "";
  const words = (settings: Record<string, string | false>) =>
    Object.entries(settings)
      .flatMap(([name, value]) => (value === false ? [] : [`${name}=${shellWord(value)} `]))
      .join("");
  return {
    keys: words({
      DATA_DIR: set("DATA_DIR") && !set("DATABASE_URL") && config.dataDir,
      DATABASE_URL: set("DATABASE_URL") && withoutPassword(config.databaseUrl),
    }),
    client: words({
      RPC_URL: (set("RPC_URL") || set("LEDGER_RPC_PORT")) && service.rpcUrl,
      PROGRAM_ID: config.programId ?? false,
      ABAS_WEB_URL: (set("PORT") || set("HOST") || set("PUBLIC_URL")) && service.webUrl,
    }),
  };
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
