/** Where the CLI writes: stdout carries results (one JSON document with --json), stderr everything else. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Progress bars only on a terminal; plain progress lines otherwise. */
  readonly stderrIsTty: boolean;
  readonly stderr: NodeJS.WritableStream;
}

export const processIo: CliIo = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  stderrIsTty: process.stderr.isTTY === true,
  stderr: process.stderr,
};

export type CommandContext = Readonly<{
  io: CliIo;
  env: NodeJS.ProcessEnv;
}>;

/** Prints a result: pretty JSON with --json, the human text otherwise. */
export function printResult(io: CliIo, json: boolean, value: unknown, text: string): void {
  io.out(json ? JSON.stringify(value, null, 2) : text);
}
