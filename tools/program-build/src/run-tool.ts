import { spawnSync } from "node:child_process";

export class ToolFailedError extends Error {
  readonly command: string;
  readonly exitCode: number | null;
  readonly stderr: string;

  constructor(command: string, exitCode: number | null, stderr: string) {
    const detail = stderr.trim() === "" ? "" : `\n${stderr.trimEnd()}`;
    super(`${command} failed (exit code ${exitCode ?? "none"})${detail}`);
    this.name = "ToolFailedError";
    this.command = command;
    this.exitCode = exitCode;
    this.stderr = stderr;
  }
}

/** Runs a build tool to completion and returns its stdout; throws ToolFailedError with its stderr. */
export function runTool(command: string, args: readonly string[], options: { cwd?: string } = {}): string {
  const result = spawnSync(command, args, {
    cwd: options.cwd,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  const commandLine = [command, ...args].join(" ");
  if (result.error) throw new ToolFailedError(commandLine, null, result.error.message);
  if (result.status !== 0) throw new ToolFailedError(commandLine, result.status, result.stderr);
  return result.stdout;
}
