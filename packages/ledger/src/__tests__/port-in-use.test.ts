/** `abas-ledger` on a port another process holds: it stops at once, naming the address and the option that moves it. */
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { test } from "node:test";

import { spawnLedgerProcess } from "../index.js";
import { temporaryDataDir } from "./support/ledger-under-test.js";

test("a port another process holds: abas-ledger names it and the option that moves it, exit code 1", async () => {
  for (const option of ["rpcPort", "wsPort"] as const) {
    // Given another process listening where the ledger would
    const blocker = createServer();
    await new Promise<void>((listening) => blocker.listen(0, "127.0.0.1", listening));
    const port = (blocker.address() as AddressInfo).port;
    const dataDir = temporaryDataDir();
    try {
      // When the ledger starts on that port
      const started = spawnLedgerProcess({ dataDir: dataDir.path, [option]: port });
      // Then it exits, and its last words name the address and the option
      const flag =
        option === "rpcPort" ? "--rpc-port <port> (LEDGER_RPC_PORT)" : "--ws-port <port> (LEDGER_WS_PORT)";
      await assert.rejects(started, (error: Error) => {
        assert.match(error.message, /exited with code 1 before it was ready/);
        assert.ok(
          error.message.includes(
            `abas-ledger: 127.0.0.1:${port} is in use by another process (another npm start or abas-ledger?): stop it, or choose another port with ${flag}`,
          ),
          error.message,
        );
        return true;
      });
    } finally {
      blocker.close();
      dataDir.remove();
    }
  }
});
