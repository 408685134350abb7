import type { CommandContext } from "../cli-io.js";

/** One `abas <name>` command: it parses its own arguments and returns the exit code. */
export type Command = Readonly<{
  name: string;
  summary: string;
  usage: string;
  /** Throws UsageError, CommandFailure or AbasError; the dispatcher reports them. */
  run(args: readonly string[], context: CommandContext): Promise<number>;
}>;
