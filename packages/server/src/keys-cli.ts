/**
 * `abas-server keys create --name <name> [--owner <owner>] | list [--owner <owner>] | revoke <id>`,
 * each with `--json`. Uses the server's database settings (DATABASE_URL or DATA_DIR) and applies
 * migrations first, so it works on a fresh database. Exit codes: 0 done, 1 refused (unknown key,
 * bad name, database error), 2 bad usage or configuration.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";

import { ABAS_API__INVALID_SERVER_CONFIG, isAbasError } from "@abas/errors";
import {
  createApiKey,
  isPostgresUrl,
  listApiKeys,
  migrateToLatest,
  openDatabase,
  revokeApiKey,
  type ApiKeyRecord,
  type DatabaseHandle,
} from "@abas/db";

import { loadDatabaseConfig } from "./config.js";

export const KEYS_USAGE = `Usage:
  abas-server keys create --name <name> [--owner <owner>] [--json]
  abas-server keys list [--owner <owner>] [--json]
  abas-server keys revoke <id> [--json]

The key is printed once, by "create"; only its SHA-256 is stored.
Database: DATABASE_URL (postgres://...) or DATA_DIR (SQLite <DATA_DIR>/abas.sqlite, default .data).`;

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

class UsageError extends Error {}

const processOutput: CliOutput = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

function formatTime(milliseconds: number | null): string {
  return milliseconds === null ? "-" : new Date(milliseconds).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function formatTable(keys: readonly ApiKeyRecord[]): string {
  const header = ["ID", "NAME", "PREFIX", "OWNER", "CREATED", "LAST USED", "STATUS"];
  const rows = keys.map((key) => [
    key.id,
    key.name,
    `${key.prefix}…`,
    key.owner,
    formatTime(key.createdAt),
    formatTime(key.lastUsedAt),
    key.revokedAt === null ? "active" : `revoked ${formatTime(key.revokedAt)}`,
  ]);
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

async function runCommand(
  handle: DatabaseHandle,
  command: string,
  args: string[],
  io: CliOutput,
): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      owner: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const print = (value: unknown, text: string) => io.out(values.json ? JSON.stringify(value, null, 2) : text);

  if (command === "create") {
    if (values.name === undefined) throw new UsageError("create needs --name <name>");
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const { key, record } = await createApiKey(handle.db, { name: values.name, owner: values.owner });
    print(
      { key, ...record },
      `${key}\n\nAPI key ${record.id} ("${record.name}") created. Store it now: it is shown only once.\n` +
        `Use it as "Authorization: Bearer <key>" or "X-API-Key: <key>".\n` +
        `It is kept in ${handle.description}: a service that reads another database (its DATA_DIR or DATABASE_URL) does not know it.`,
    );
    return;
  }
  if (command === "list") {
    if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    const keys = await listApiKeys(handle.db, { owner: values.owner });
    print(keys, keys.length === 0 ? "No API keys." : formatTable(keys));
    return;
  }
  if (command === "revoke") {
    if (positionals.length !== 1) throw new UsageError("revoke needs exactly one key id (see: keys list)");
    const record = await revokeApiKey(handle.db, positionals[0]!);
    print(record, `API key ${record.id} ("${record.name}") revoked.`);
    return;
  }
  throw new UsageError(command === "" ? "a command is needed" : `unknown command "${command}"`);
}

/** Runs `keys <command> ...`; returns the process exit code. */
export async function runKeysCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: CliOutput = processOutput,
): Promise<number> {
  const [command = "", ...rest] = args;
  const options = args.includes("--") ? args.slice(0, args.indexOf("--")) : args;
  if (command === "help" || options.includes("--help") || options.includes("-h")) {
    io.out(KEYS_USAGE);
    return 0;
  }
  let handle: DatabaseHandle | undefined;
  try {
    if (!["create", "list", "revoke"].includes(command)) {
      throw new UsageError(command === "" ? "a command is needed" : `unknown command "${command}"`);
    }
    const config = loadDatabaseConfig(env);
    // Only create makes a database: list and revoke in one that is not there would make an empty one.
    if (command !== "create" && !isPostgresUrl(config.databaseUrl) && !existsSync(config.databaseUrl)) {
      throw new UsageError(
        `no database at ${config.databaseUrl}: is DATA_DIR (or DATABASE_URL) the one the service uses? ` +
          "A key is created, and its database with it, by keys create",
      );
    }
    handle = openDatabase({ url: config.databaseUrl, maxConnections: 1 });
    await migrateToLatest(handle);
    await runCommand(handle, command, [...rest], io);
    return 0;
  } catch (error) {
    return reportFailure(error, io);
  } finally {
    await handle?.close();
  }
}

function reportFailure(error: unknown, io: CliOutput): number {
  if (error instanceof UsageError || (error instanceof TypeError && "code" in error)) {
    // parseArgs throws TypeErrors with an ERR_PARSE_ARGS_* code for unknown or ill-typed options.
    io.err(`abas-server keys: ${error.message}\n\n${KEYS_USAGE}`);
    return 2;
  }
  if (isAbasError(error)) {
    io.err(`abas-server keys: ${error.message} (code ${error.code})`);
    return isAbasError(error, ABAS_API__INVALID_SERVER_CONFIG) ? 2 : 1;
  }
  io.err(`abas-server keys: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}
