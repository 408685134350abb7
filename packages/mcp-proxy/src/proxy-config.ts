/**
 * The proxy's settings: `abas-mcp-proxy [options] -- <server command> [args...]`. Each option
 * also has an environment variable (the `env` block of the host's MCP config); a flag wins over
 * its variable, an empty variable counts as unset. One zod schema checks them all.
 */
import { createHash } from "node:crypto";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

import { ABAS_SDK__INVALID_PROXY_CONFIG, AbasError } from "@abas/errors";
import { DEFAULT_MAX_QUEUED_ACTIONS } from "@abas/sdk/attestor";
import { z } from "zod";

export const DEFAULT_RPC_URL = "http://127.0.0.1:8899";
export const DEFAULT_AGENT_KEYPAIR = "~/.config/solana/agent.json";
export const DEFAULT_OPERATOR_KEYPAIR = "~/.config/solana/id.json";
export const DEFAULT_MAX_BATCH_DELAY_MS = 2_000;

export const PROXY_USAGE = `Usage: abas-mcp-proxy [options] -- <MCP server command> [args...]

Forwards every message between the model host (stdin/stdout) and the MCP server it starts, and
records each tools/call as an ABAS ToolCall action; receipts go to the receipts folder.

Options (environment variable in parentheses):
  --rpc-url <url>              Solana JSON-RPC node (ABAS_RPC_URL, default ${DEFAULT_RPC_URL})
  --program-id <address>       the ABAS program (ABAS_PROGRAM_ID, default the local ledger's)
  --agent-keypair <file>       the agent's key, signs every batch (ABAS_AGENT_KEYPAIR, default ${DEFAULT_AGENT_KEYPAIR})
  --operator-keypair <file>    pays for batches, registered the agent (ABAS_OPERATOR_KEYPAIR, default ${DEFAULT_OPERATOR_KEYPAIR})
  --queue-dir <dir>            the attestor's queue (ABAS_QUEUE_DIR, default ~/.abas/mcp-proxy/<agent>/queue-<server>,
                               or queue-<server>-2 and on while other proxies of the server hold those)
  --receipts-dir <dir>         one JSON file per receipt (ABAS_RECEIPTS_DIR, default ~/.abas/mcp-proxy/<agent>/receipts)
  --privacy                    record salted commitments instead of hashes (ABAS_PRIVACY_MODE=true)
  --durability <write|fsync>   write: a recorded call survives kill -9 of the proxy (~0.1 ms);
                               fsync: it also survives power loss (~8 ms per call) (ABAS_DURABILITY, default write)
  --max-batch-delay-ms <ms>    longest wait before a batch is sent (ABAS_MAX_BATCH_DELAY_MS, default ${DEFAULT_MAX_BATCH_DELAY_MS})
  --max-queued-calls <n>       calls waiting for the ledger at most; past it a tools/call is not forwarded and the
                               host gets ABAS_SDK__TOOL_CALL_NOT_RECORDED (ABAS_MAX_QUEUED_CALLS, default ${DEFAULT_MAX_QUEUED_ACTIONS})
  -h, --help                   this help`;

const httpUrl = z.string().refine((value) => {
  try {
    return ["http:", "https:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, "expected the http(s) URL of a Solana JSON-RPC node");

/** A whole number written in digits (up to 7 of them), checked further by `bounds`. */
const digits = (unit: string, bounds: z.ZodNumber) =>
  z
    .string()
    .regex(/^\d{1,7}$/, `expected a whole number${unit}, in digits`)
    .transform(Number)
    .pipe(bounds);

const ProxySettings = z.object({
  rpcUrl: httpUrl.default(DEFAULT_RPC_URL),
  programId: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "expected the base58 address of the ABAS program")
    .optional(),
  agentKeypair: z.string().min(1).default(DEFAULT_AGENT_KEYPAIR),
  operatorKeypair: z.string().min(1).default(DEFAULT_OPERATOR_KEYPAIR),
  queueDir: z.string().min(1).optional(),
  receiptsDir: z.string().min(1).optional(),
  privacyMode: z
    .enum(["true", "false", "1", "0"], { error: "expected true or false" })
    .transform((value) => value === "true" || value === "1")
    .default(false),
  durability: z.enum(["write", "fsync"], { error: 'expected "write" or "fsync"' }).default("write"),
  maxBatchDelayMs: digits(
    " of milliseconds",
    z.number().max(3_600_000, "expected at most 3600000 (an hour)"),
  ).default(DEFAULT_MAX_BATCH_DELAY_MS),
  maxQueuedCalls: digits("", z.number().min(1, "expected at least 1")).default(DEFAULT_MAX_QUEUED_ACTIONS),
  command: z
    .string({ error: "give the MCP server command after --" })
    .min(1, "give the MCP server command after --"),
  args: z.array(z.string()),
});

export type ProxyConfig = Readonly<{
  rpcUrl: string;
  programId: string | undefined;
  agentKeypair: string;
  operatorKeypair: string;
  /** Undefined: the default, which needs the agent's address. */
  queueDir: string | undefined;
  receiptsDir: string | undefined;
  privacyMode: boolean;
  durability: "write" | "fsync";
  maxBatchDelayMs: number;
  maxQueuedCalls: number;
  /** The MCP server to start. */
  command: string;
  args: string[];
}>;

const OPTIONS = {
  "rpc-url": { type: "string", env: "ABAS_RPC_URL", key: "rpcUrl" },
  "program-id": { type: "string", env: "ABAS_PROGRAM_ID", key: "programId" },
  "agent-keypair": { type: "string", env: "ABAS_AGENT_KEYPAIR", key: "agentKeypair" },
  "operator-keypair": { type: "string", env: "ABAS_OPERATOR_KEYPAIR", key: "operatorKeypair" },
  "queue-dir": { type: "string", env: "ABAS_QUEUE_DIR", key: "queueDir" },
  "receipts-dir": { type: "string", env: "ABAS_RECEIPTS_DIR", key: "receiptsDir" },
  privacy: { type: "boolean", env: "ABAS_PRIVACY_MODE", key: "privacyMode" },
  durability: { type: "string", env: "ABAS_DURABILITY", key: "durability" },
  "max-batch-delay-ms": { type: "string", env: "ABAS_MAX_BATCH_DELAY_MS", key: "maxBatchDelayMs" },
  "max-queued-calls": { type: "string", env: "ABAS_MAX_QUEUED_CALLS", key: "maxQueuedCalls" },
} as const;

const expandHome = (path: string): string => (path.startsWith("~/") ? join(homedir(), path.slice(2)) : path);

function invalidConfig(problems: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_PROXY_CONFIG, { problems });
}

/** `{ help: true }` for -h/--help; otherwise the checked settings, or `ABAS_SDK__INVALID_PROXY_CONFIG`. */
export function parseProxyConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
): { help: true } | { help: false; config: ProxyConfig } {
  const separator = argv.indexOf("--");
  const own = separator === -1 ? argv : argv.slice(0, separator);
  const server = separator === -1 ? [] : argv.slice(separator + 1);
  let values: Record<string, string | boolean | undefined>;
  try {
    const parsed = parseArgs({
      args: [...own],
      options: {
        ...Object.fromEntries(Object.entries(OPTIONS).map(([name, { type }]) => [name, { type }])),
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw invalidConfig(`${(error as Error).message} (options go before --, the server command after it)`);
  }
  if (values.help === true) return { help: true };
  const input: Record<string, unknown> = { command: server[0], args: server.slice(1) };
  for (const [name, { env: variable, key }] of Object.entries(OPTIONS)) {
    const flag = values[name];
    const fromEnv = env[variable]?.trim();
    if (flag !== undefined) input[key] = typeof flag === "boolean" ? String(flag) : flag;
    else if (fromEnv !== undefined && fromEnv !== "") input[key] = fromEnv;
  }
  const parsed = ProxySettings.safeParse(input);
  if (!parsed.success) {
    const flagOf = (key: string) => {
      const entry = Object.entries(OPTIONS).find(([, option]) => option.key === key);
      return entry === undefined ? key : `--${entry[0]} (${entry[1].env})`;
    };
    throw invalidConfig(
      parsed.error.issues
        .map((issue) => {
          const key = String(issue.path[0]);
          const shown = input[key] === undefined ? "" : ` (got ${JSON.stringify(input[key])})`;
          return `${key === "command" ? "server command" : flagOf(key)}: ${issue.message}${shown}`;
        })
        .join("; "),
    );
  }
  const settings = parsed.data;
  return {
    help: false,
    config: {
      ...settings,
      programId: settings.programId,
      agentKeypair: expandHome(settings.agentKeypair),
      operatorKeypair: expandHome(settings.operatorKeypair),
      queueDir: settings.queueDir === undefined ? undefined : resolve(expandHome(settings.queueDir)),
      receiptsDir: settings.receiptsDir === undefined ? undefined : resolve(expandHome(settings.receiptsDir)),
    },
  };
}

/** How many proxies of one server can run at once with the default queue folders. */
export const QUEUES_PER_SERVER = 16;

/**
 * The proxy's folders: the receipts folder, and the queue folders it may take, in order. Given
 * `--queue-dir`, that one only. By default, per agent, the folders of the server command, of the
 * ledger it records on (`--rpc-url`, `--program-id`) and of the receipts folder: a call queued by
 * one proxy and sent by another goes to the ledger and the receipts folder it was recorded for.
 * `queue-<server>`, then `queue-<server>-2` and on, since one attestor at a time owns a queue and
 * the same server may run behind several proxies at once (configured in two hosts, or a host's two
 * sessions).
 */
export function proxyFolders(
  agent: string,
  config: ProxyConfig,
): { queueDirs: string[]; receiptsDir: string } {
  const base = join(homedir(), ".abas", "mcp-proxy", agent);
  const receiptsDir = config.receiptsDir ?? join(base, "receipts");
  const server = createHash("sha256")
    .update(
      JSON.stringify([config.command, config.args, config.rpcUrl, config.programId ?? null, receiptsDir]),
    )
    .digest("hex")
    .slice(0, 12);
  const first = join(base, `queue-${server}`);
  return {
    queueDirs:
      config.queueDir !== undefined
        ? [config.queueDir]
        : Array.from({ length: QUEUES_PER_SERVER }, (_, index) =>
            index === 0 ? first : `${first}-${index + 1}`,
          ),
    receiptsDir,
  };
}
