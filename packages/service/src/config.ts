/** The service's settings, from the environment (see .env.example), checked before anything starts. */
import { join, resolve } from "node:path";
import { TrustProxySetting } from "@abas/server";
import { z } from "zod";

const port = z.coerce.number().int().min(0).max(65_535);

const Environment = z.object({
  DATA_DIR: z.string().min(1).default(".data"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: port.default(8080),
  LEDGER_RPC_PORT: port.default(8899),
  /** Default: LEDGER_RPC_PORT + 1, as `abas-ledger` does (0, any free port, when that is 0). */
  LEDGER_WS_PORT: port.optional(),
  RPC_URL: z.url().optional(),
  WS_URL: z.url().optional(),
  PROGRAM_ID: z.string().min(32).max(44).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  PUBLIC_URL: z.url().optional(),
  TRUST_PROXY: TrustProxySetting,
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(0),
  LOG_LEVEL: z.enum(["trace", "debug", "info", "warn", "error", "fatal", "silent"]).default("warn"),
});

export interface ServiceConfig {
  readonly dataDir: string;
  readonly host: string;
  readonly apiPort: number;
  /** Run the embedded local ledger; false when RPC_URL names another one (devnet, say). */
  readonly localLedger: boolean;
  readonly ledgerRpcPort: number;
  readonly ledgerWsPort: number;
  readonly rpcUrl: string | undefined;
  readonly wsUrl: string | undefined;
  readonly programId: string | undefined;
  /** A postgres:// URL, or the SQLite file under the data directory. */
  readonly databaseUrl: string;
  /** The address users reach the service at (behind a proxy); links in pages and share cards use it. */
  readonly publicUrl: string | undefined;
  /** Proxies (a load balancer) whose X-Forwarded-For names the client; undefined: none. */
  readonly trustProxy: string | undefined;
  /** On stop: how long to serve with readiness at 503 before closing the listener. */
  readonly drainDelayMs: number;
  readonly logLevel: z.infer<typeof Environment>["LOG_LEVEL"];
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can reach the server there. */
function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export class ServiceConfigError extends Error {
  override readonly name = "ServiceConfigError";
}

export function loadServiceConfig(environment: NodeJS.ProcessEnv): ServiceConfig {
  // A setting left empty (`RPC_URL=` in a copy of .env.example) is not set.
  const env = Object.fromEntries(Object.entries(environment).filter(([, value]) => value !== ""));
  const parsed = Environment.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
    throw new ServiceConfigError(`invalid settings: ${problems.join("; ")}`);
  }
  const e = parsed.data;
  if (e.PUBLIC_URL === undefined && !isLoopbackHost(e.HOST)) {
    throw new ServiceConfigError(
      `invalid settings: PUBLIC_URL: required when HOST (${e.HOST}) is not a loopback address: sign-in and ` +
        "share links name the site by it (set it to the address users reach, e.g. https://abas.example.com)",
    );
  }
  // The local ledger's ports with another ledger's address: which ledger was meant is not clear.
  const localLedgerPorts = (["LEDGER_RPC_PORT", "LEDGER_WS_PORT"] as const).filter(
    (name) => env[name] !== undefined,
  );
  if (e.RPC_URL !== undefined && localLedgerPorts.length > 0) {
    throw new ServiceConfigError(
      `invalid settings: ${localLedgerPorts.join(" and ")} with RPC_URL: RPC_URL follows a ledger that runs elsewhere, ` +
        `so no local ledger starts and ${localLedgerPorts.length > 1 ? "they set" : "it sets"} nothing; unset one or the other ` +
        "(commands that only talk to a ledger, such as npm run demo, take RPC_URL; npm start runs its own unless RPC_URL is set)",
    );
  }
  const ledgerWsPort = e.LEDGER_WS_PORT ?? (e.LEDGER_RPC_PORT === 0 ? 0 : e.LEDGER_RPC_PORT + 1);
  if (ledgerWsPort > 65_535) {
    throw new ServiceConfigError(
      `invalid settings: LEDGER_WS_PORT: LEDGER_RPC_PORT + 1 (${ledgerWsPort}) is not a port; set LEDGER_WS_PORT`,
    );
  }
  // The embedded ledger's ports only matter when it runs; 0 (any free port) may repeat.
  const ports: Array<[string, number]> = [["PORT", e.PORT]];
  if (e.RPC_URL === undefined)
    ports.push(["LEDGER_RPC_PORT", e.LEDGER_RPC_PORT], ["LEDGER_WS_PORT", ledgerWsPort]);
  for (const [index, [name, value]] of ports.entries()) {
    const other = ports.slice(0, index).find(([, earlier]) => earlier === value && value !== 0);
    if (other !== undefined) {
      throw new ServiceConfigError(
        `invalid settings: ${other[0]} and ${name} are both ${value}: each needs a port of its own`,
      );
    }
  }
  const dataDir = resolve(e.DATA_DIR);
  return {
    dataDir,
    host: e.HOST,
    apiPort: e.PORT,
    localLedger: e.RPC_URL === undefined,
    ledgerRpcPort: e.LEDGER_RPC_PORT,
    ledgerWsPort,
    rpcUrl: e.RPC_URL,
    wsUrl: e.WS_URL,
    programId: e.PROGRAM_ID,
    databaseUrl: e.DATABASE_URL ?? join(dataDir, "abas.sqlite"),
    publicUrl: e.PUBLIC_URL,
    trustProxy: e.TRUST_PROXY,
    drainDelayMs: e.DRAIN_DELAY_MS,
    logLevel: e.LOG_LEVEL,
  };
}
