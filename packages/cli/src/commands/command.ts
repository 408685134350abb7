import type { CommandContext } from "../cli-io.js";

/** One `abas <name>` command: it parses its own arguments and returns the exit code. */
export type Command = Readonly<{
  usage: string;
  /** Throws UsageError, CommandFailure or AbasError; the dispatcher reports them. */
  run(args: readonly string[], context: CommandContext): Promise<number>;
}>;

/**
 * A command as `abas --help` lists it. Its module is loaded only when the command runs, so each
 * command starts with the modules it needs and no others.
 */
export type CommandEntry = Readonly<{
  name: string;
  summary: string;
  load(): Promise<Command>;
}>;
