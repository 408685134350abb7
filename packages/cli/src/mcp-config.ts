/**
 * A server's entry in a model host's MCP configuration (`mcp-config.json`, Claude Desktop's
 * `claude_desktop_config.json`, …): `{ "mcpServers": { "<name>": { "command", "args", "env" } } }`.
 */
import { readFileSync, statSync } from "node:fs";

import { UsageError } from "./usage-error.js";

export type ServerEntry = Readonly<{
  name: string;
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string | undefined;
}>;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isStringRecord = (value: unknown): value is Record<string, string> =>
  isRecord(value) && Object.values(value).every((item) => typeof item === "string");

/** A problem inside the file: the usage would not help. */
const fileProblem = (message: string): UsageError => new UsageError(message, { showUsage: false });

export function readServerEntry(file: string, name: string): ServerEntry {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw fileProblem(`cannot read ${file}: ${(error as Error).message}`);
  }
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    throw fileProblem(`${file} is not JSON: ${(error as Error).message}`);
  }
  const servers = isRecord(config) ? config.mcpServers : undefined;
  if (!isRecord(servers)) {
    throw fileProblem(
      `${file} has no "mcpServers" object; a host's MCP configuration reads { "mcpServers": { "<name>": { "command": "…", "args": […] } } }`,
    );
  }
  if (!Object.hasOwn(servers, name)) {
    const names = Object.keys(servers);
    throw fileProblem(
      `${file} has no server "${name}"; ${names.length === 0 ? "it names none" : `its servers: ${names.join(", ")}`}`,
    );
  }
  const entry = servers[name];
  const where = `server "${name}" in ${file}`;
  if (!isRecord(entry)) throw fileProblem(`${where} is not an object`);
  const { command, args = [], env = {}, cwd } = entry;
  if (typeof command !== "string" || command === "") {
    throw fileProblem(`${where}: "command" must be a non-empty string (the server's program)`);
  }
  if (!Array.isArray(args) || !args.every((arg) => typeof arg === "string")) {
    throw fileProblem(`${where}: "args" must be an array of strings`);
  }
  if (!isStringRecord(env)) throw fileProblem(`${where}: "env" must be an object of strings`);
  if (cwd !== undefined && typeof cwd !== "string") throw fileProblem(`${where}: "cwd" must be a string`);
  if (cwd !== undefined && statSync(cwd, { throwIfNoEntry: false })?.isDirectory() !== true) {
    throw fileProblem(`${where}: "cwd" ${cwd} is not a folder`);
  }
  return { name, command, args, env, cwd };
}
