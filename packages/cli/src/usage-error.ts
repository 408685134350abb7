/**
 * A problem with how the command was called or configured (a missing option, a bad value, an
 * unreadable file): exit code 2, with the command's usage.
 */
export class UsageError extends Error {
  override readonly name = "UsageError";
  /** Print the command's usage after the message (false for problems inside a file, say). */
  readonly showUsage: boolean;

  constructor(message: string, options: { showUsage?: boolean } = {}) {
    super(message);
    this.showUsage = options.showUsage ?? true;
  }
}

/** The command ran and failed in a way the user can act on (exit code 1), without an AbasError. */
export class CommandFailure extends Error {
  override readonly name = "CommandFailure";
  readonly details: Readonly<Record<string, unknown>>;
  /** What to do about it, when the message alone does not say. */
  readonly hint: string | undefined;

  constructor(message: string, details: Record<string, unknown> = {}, hint?: string) {
    super(message);
    this.details = details;
    this.hint = hint;
  }
}
