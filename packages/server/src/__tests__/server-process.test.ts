import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";

import { ABAS_API__SHUTTING_DOWN } from "@abas/errors";

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

describe("abas-server shutdown", () => {
  it("on SIGTERM turns readiness 503 first, finishes the request in flight, then exits 0", async () => {
    // Given a ledger that accepts connections and never answers (a fault injected on purpose), so
    // that a health check stays in flight for its whole 2.5 s timeout
    const hung = createServer(() => undefined);
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    const dataDir = mkdtempSync(join(tmpdir(), "abas-server-drain-"));
    const child = spawnBin([], {
      DATA_DIR: dataDir,
      PORT: "0",
      LOG_LEVEL: "info",
      RPC_URL: `http://127.0.0.1:${(hung.address() as { port: number }).port}`,
      HEALTH_TIMEOUT_MS: "2500",
      DRAIN_DELAY_MS: "1000",
    });
    try {
      const url = await servingUrl(child);
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      const inFlight = httpGet(`${url}/health`);
      await delay(200);

      // When the server is told to stop
      child.kill("SIGTERM");
      await delay(200);

      // Then a new request learns it is shutting down, the one in flight gets its whole answer,
      // and the process ends cleanly
      const ready = await httpGet(`${url}/ready`);
      assert.equal(ready.status, 503);
      assert.deepEqual(
        (ready.body as { causes: { code: number }[] }).causes.map((cause) => cause.code),
        [ABAS_API__SHUTTING_DOWN],
      );
      const health = await inFlight;
      assert.equal(health.status, 503);
      assert.match(JSON.stringify(health.body), /no answer within 2500 ms/);
      assert.equal(await exited, 0);
    } finally {
      child.kill("SIGKILL");
      hung.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

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
