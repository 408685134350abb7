/**
 * A project outside the repository, as a user starts one: its own package.json, the packed
 * tarballs and third-party packages installed with `npm install` from the registry (no workspace
 * links), and commands run there with the user's environment and plain `node`.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

import { userEnv } from "./user-env.js";

const run = promisify(execFile);

export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
}

export interface OutsideProject {
  readonly dir: string;
  /** Runs a command in the project and resolves with its output; rejects on a non-zero exit. */
  exec(
    command: string,
    args: readonly string[],
    env?: Readonly<Record<string, string>>,
  ): Promise<CommandResult>;
  /** Starts a long-running command in its own process group (stopped with `stopProcessGroup`). */
  start(command: string, args: readonly string[], env?: Readonly<Record<string, string>>): ChildProcess;
  writeFile(name: string, text: string): string;
}

export async function createOutsideProject(
  dir: string,
  packages: readonly string[],
): Promise<OutsideProject> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "agent-project", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`,
  );
  const project: OutsideProject = {
    dir,
    async exec(command, args, env = {}) {
      const { stdout, stderr } = await run(command, [...args], {
        cwd: dir,
        env: userEnv(env),
        maxBuffer: 64 * 1024 * 1024,
      });
      return { stdout, stderr };
    },
    start(command, args, env = {}) {
      return spawn(command, [...args], {
        cwd: dir,
        env: userEnv(env),
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    },
    writeFile(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
  await project.exec("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", ...packages]);
  return project;
}

/** SIGTERM to the group of a process `start` began (npx and the node it runs), then its exit. */
export async function stopProcessGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  process.kill(-child.pid, "SIGTERM");
  await exited;
}
