/** `abas keys ...`: the server's API-key commands, on the database of DATA_DIR or DATABASE_URL. */
import { KEYS_USAGE, runKeysCli } from "@abas/server";

import type { CommandContext } from "../cli-io.js";
import type { Command } from "./command.js";

const rename = (text: string): string => text.replaceAll("abas-server keys", "abas keys");

export const keysCommand: Command = {
  usage: rename(KEYS_USAGE),
  run: async (args: readonly string[], { io, env }: CommandContext) =>
    await runKeysCli(args, env, {
      out: (text) => io.out(rename(text)),
      err: (text) => io.err(rename(text)),
    }),
};
