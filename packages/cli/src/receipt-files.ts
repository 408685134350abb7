import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

import { CommandFailure, UsageError } from "./usage-error.js";

/** Writes a receipt file; never overwrites one, since a receipt is the proof of an action. */
export function writeNewFile(path: string, text: string, option: string): string {
  const absolute = resolve(path);
  try {
    writeFileSync(absolute, text, { flag: "wx", mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new UsageError(
        `${option}: ${path} exists already; receipts are never overwritten (choose another file)`,
      );
    }
    throw new CommandFailure(`${option}: cannot write ${path}: ${(error as Error).message}`);
  }
  return absolute;
}

/** Fails before anything is sent when the output file exists already or cannot be created. */
export function assertWritableNewFile(path: string, option: string): void {
  if (existsSync(path)) {
    throw new UsageError(
      `${option}: ${path} exists already; receipts are never overwritten (choose another file)`,
    );
  }
  if (!existsSync(dirname(resolve(path)))) {
    throw new UsageError(`${option}: the folder of ${path} does not exist`);
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
