import { appendFileSync, closeSync, existsSync, openSync, readFileSync, rmSync } from "node:fs";
import { dirname, resolve } from "node:path";

import { UsageError } from "./usage-error.js";

/**
 * A new receipts file, made before anything is sent: a path that cannot be written fails first,
 * with nothing attested. Never overwrites a file, since a receipt is the proof of an action.
 */
export class NewReceiptsFile {
  #written = false;

  private constructor(
    readonly path: string,
    private readonly option: string,
  ) {}

  static create(path: string, option: string): NewReceiptsFile {
    const absolute = resolve(path);
    try {
      closeSync(openSync(absolute, "wx", 0o600));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EEXIST") {
        throw new UsageError(
          `${option}: ${path} exists already; receipts are never overwritten (choose another file)`,
        );
      }
      if (code === "ENOENT" && !existsSync(dirname(absolute))) {
        throw new UsageError(`${option}: the folder of ${path} does not exist`);
      }
      throw new UsageError(`${option}: cannot create ${path}: ${(error as Error).message}`);
    }
    return new NewReceiptsFile(absolute, option);
  }

  /** Appends `text`; the reason when it cannot, for the caller to keep the receipts some other way. */
  append(text: string): string | undefined {
    try {
      appendFileSync(this.path, text);
      this.#written = true;
      return undefined;
    } catch (error) {
      return `${this.option}: cannot write ${this.path}: ${(error as Error).message}`;
    }
  }

  /** Removes the file if no receipt went into it (the command failed before any was made). */
  removeIfEmpty(): void {
    if (!this.#written) rmSync(this.path, { force: true });
  }
}

export function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    throw new UsageError(
      `cannot read ${what} ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
