/** `abas keygen [--out <path>]`: a new key pair in the Solana CLI's file format (a JSON array of 64 bytes). */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";

import { generateSecretKey } from "@abas/sdk";
import { getBase58Decoder } from "@solana/kit";

import { printResult, type CommandContext } from "../cli-io.js";
import { assertNoPositionals, parseOptions } from "../parse-options.js";
import { CommandFailure, UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage: abas keygen [--out <path>] [--json]

Writes a new Ed25519 key pair in the Solana CLI's format (usable as --operator or --agent, and by
solana-keygen), readable only by you, and prints its address. Never overwrites a file.
  --out <path>   where to write it (default ./<address>.json)`;

async function run(args: readonly string[], { io }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { out: { type: "string" } });
  assertNoPositionals(positionals);
  const secretKey = generateSecretKey();
  const address = getBase58Decoder().decode(secretKey.subarray(32));
  const path = resolve(values.out ?? `${address}.json`);
  try {
    writeFileSync(path, `[${secretKey.join(",")}]`, { flag: "wx", mode: 0o600 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") {
      throw new UsageError(`${path} exists already; keygen never overwrites a key (choose another --out)`, {
        showUsage: false,
      });
    }
    throw new CommandFailure(`cannot write ${path}: ${(error as Error).message}`);
  } finally {
    secretKey.fill(0);
  }
  printResult(io, values.json, { address, path }, `${address}\nKey pair written to ${path}`);
  return 0;
}

export const keygenCommand: Command = {
  usage: USAGE,
  run,
};
