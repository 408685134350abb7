import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { openTestDatabase, testDatabaseTargets, type TestDatabase } from "@abas/db/testing";

import { httpGet } from "./support/api-under-test.js";
import { runBin, spawnBin } from "./support/run-bin.js";

/** Resolves with the API URL from the server's "serving" log line. */
function servingUrl(child: ReturnType<typeof spawnBin>): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (const line of buffered.split("\n")) {
        if (!line.includes('"ABAS API serving"')) continue;
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.on("exit", (code) => reject(new Error(`the server exited with ${code}`)));
  });
}

for (const target of testDatabaseTargets()) {
  describe(`abas-server process on ${target.label}`, { skip: target.skip }, () => {
    let database: TestDatabase;
    before(async () => {
      database = await openTestDatabase(target.dialect);
    });
    after(async () => {
      await database?.dispose();
    });

    it("serves on the configured port and closes cleanly on SIGTERM", async () => {
      const child = spawnBin([], {
        ...database.env,
        PORT: "0",
        HOST: "127.0.0.1",
        LOG_LEVEL: "info",
        RPC_URL: "http://127.0.0.1:9",
      });
      try {
        const url = await servingUrl(child);
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
        assert.deepEqual((await httpGet(`${url}/ping`)).body, { ok: true });
        const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
        child.kill("SIGTERM");
        assert.equal(await exited, 0);
      } finally {
        child.kill("SIGKILL");
      }
    });
  });
}

describe("abas-server process settings", () => {
  it("creates and migrates the SQLite database under DATA_DIR on first start", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "abas-server-fresh-"));
    try {
      const child = spawnBin([], { DATA_DIR: dataDir, PORT: "0", LOG_LEVEL: "info" });
      const url = await servingUrl(child);
      assert.equal((await httpGet(`${url}/attestations`)).status, 401);
      child.kill("SIGTERM");
      await new Promise((resolve) => child.on("exit", resolve));
      assert.ok(existsSync(join(dataDir, "abas.sqlite")));
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("refuses an invalid setting with exit code 2, naming the variable", async () => {
    const result = await runBin([], { PORT: "eighty", DATA_DIR: tmpdir() });
    assert.equal(result.exitCode, 2);
    assert.match(result.stderr, /Invalid server configuration PORT/);
    const badRpc = await runBin([], { RPC_URL: "ftp://ledger", DATA_DIR: tmpdir() });
    assert.equal(badRpc.exitCode, 2);
    assert.match(badRpc.stderr, /RPC_URL: expected an http\(s\) URL/);
  });
});
