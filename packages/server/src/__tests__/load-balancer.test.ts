/**
 * Two abas-server replicas behind a real HAProxy (Debian's package, on the repository's
 * deploy/haproxy/haproxy.cfg), under steady traffic: a rolling restart, one replica after the
 * other (SIGTERM: readiness 503 first, drain, exit; start again; back in rotation), must fail no
 * request, also with the balancer's retries switched off (the drain alone); a replica killed with
 * SIGKILL may fail only the requests it had in flight, at most as many as there are clients (the
 * balancer's retries send them to the other replica). On PostgreSQL when DATABASE_URL is set, else
 * on one SQLite file.
 */
import assert from "node:assert/strict";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";

import { createApiKey } from "@abas/db";
import {
  buildAttestation,
  openTestDatabase,
  seedAttestations,
  testDatabaseTargets,
  type TestDatabase,
} from "@abas/db/testing";

import {
  freePort,
  HAPROXY_CONFIG,
  haproxySkipReason,
  startHaproxy,
  type RunningHaproxy,
} from "./support/haproxy.js";
import { spawnBin } from "./support/run-bin.js";

const CLIENTS = 4;
/** Pause between two requests of one client: about 4 x 100 requests a second in all. */
const PACE_MS = 10;
const DRAIN_DELAY_MS = 2_000;

interface Replica {
  readonly port: number;
  readonly exited: Promise<number | null>;
  readonly signal: (signal: NodeJS.Signals) => void;
}

interface Traffic {
  readonly sent: () => number;
  readonly failures: () => readonly string[];
  stop(): Promise<void>;
}

/** CLIENTS loops, each sending GETs of attestations through the balancer one after the other. */
function startTraffic(url: string, apiKey: string): Traffic {
  let running = true;
  let sent = 0;
  const failures: string[] = [];
  const loops = Array.from({ length: CLIENTS }, async () => {
    while (running) {
      sent += 1;
      try {
        const response = await fetch(`${url}/api/v1/attestations?limit=5`, {
          headers: { authorization: `Bearer ${apiKey}` },
          signal: AbortSignal.timeout(10_000),
        });
        const body = await response.text();
        if (response.status !== 200) failures.push(`HTTP ${response.status}: ${body.slice(0, 120)}`);
      } catch (error) {
        failures.push(`no answer: ${(error as Error).message}`);
      }
      await delay(PACE_MS);
    }
  });
  return {
    sent: () => sent,
    failures: () => failures,
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
}

const target =
  testDatabaseTargets().find((candidate) => candidate.dialect === "postgres" && candidate.skip === false) ??
  testDatabaseTargets()[0]!;

describe(
  `two replicas behind HAProxy on ${target.label}`,
  { skip: haproxySkipReason(), timeout: 300_000 },
  () => {
    let database: TestDatabase;
    let apiKey: string;
    let haproxy: RunningHaproxy;
    let directory: string;
    const replicas = new Map<string, Replica>();

    async function startReplica(name: string, port: number): Promise<Replica> {
      const child = spawnBin([], {
        ...database.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        LOG_LEVEL: "warn",
        RPC_URL: "http://127.0.0.1:9",
        RATE_LIMIT_PER_MINUTE: "100000000",
        TRUST_PROXY: "127.0.0.1",
        DRAIN_DELAY_MS: String(DRAIN_DELAY_MS),
      });
      const replica: Replica = {
        port,
        exited: new Promise((resolve) => child.once("exit", (code) => resolve(code))),
        signal: (signal) => child.kill(signal),
      };
      replicas.set(name, replica);
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          if ((await fetch(`http://127.0.0.1:${port}/api/v1/ready`)).status === 200) return replica;
        } catch {
          // Not listening yet.
        }
        if (Date.now() > deadline) throw new Error(`replica ${name} did not become ready`);
        await delay(100);
      }
    }

    async function waitForBalancer(expected: Record<string, string>): Promise<void> {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const states = Object.fromEntries(await haproxy.serverStates());
        if (Object.entries(expected).every(([name, state]) => states[name] === state)) return;
        if (Date.now() > deadline) throw new Error(`HAProxy sees ${JSON.stringify(states)}`);
        await delay(100);
      }
    }

    before(async () => {
      directory = mkdtempSync(join(tmpdir(), "abas-lb-"));
      database = await openTestDatabase(target.dialect);
      await seedAttestations(
        database.db,
        Array.from({ length: 50 }, (_, i) =>
          buildAttestation({ slot: 100 + i, timestamp: 1_763_700_000 + i }),
        ),
      );
      apiKey = (await createApiKey(database.db, { name: "load balancer test" })).key;
      const ports = [await freePort(), await freePort()];
      await Promise.all([startReplica("replica1", ports[0]!), startReplica("replica2", ports[1]!)]);
      haproxy = await startHaproxy({
        directory,
        replicas: [`127.0.0.1:${ports[0]}`, `127.0.0.1:${ports[1]}`],
      });
      await waitForBalancer({ replica1: "UP", replica2: "UP" });
    });
    after(async () => {
      for (const replica of replicas.values()) replica.signal("SIGKILL");
      await haproxy?.stop();
      await database?.dispose();
      rmSync(directory, { recursive: true, force: true });
    });

    async function rollingRestart(
      through: RunningHaproxy,
    ): Promise<{ sent: number; failures: readonly string[]; seconds: number }> {
      const traffic = startTraffic(through.url, apiKey);
      const started = Date.now();
      await delay(1_000);
      for (const name of ["replica1", "replica2"]) {
        const old = replicas.get(name)!;
        // SIGTERM: readiness turns 503, HAProxy takes the replica out, the replica drains and exits
        old.signal("SIGTERM");
        assert.equal(await old.exited, 0, `${name} exited cleanly`);
        await startReplica(name, old.port);
        await waitForBalancer({ replica1: "UP", replica2: "UP" });
        await delay(1_000);
      }
      await traffic.stop();
      return { sent: traffic.sent(), failures: traffic.failures(), seconds: (Date.now() - started) / 1000 };
    }

    it("restarts both replicas one after the other without a failed request", async (t) => {
      const { sent, failures, seconds } = await rollingRestart(haproxy);
      t.diagnostic(`rolling restart: ${sent} requests in ${seconds.toFixed(1)} s, ${failures.length} failed`);
      assert.deepEqual(failures, []);
    });

    it("restarts them without a failed request even when the balancer never retries: the drain alone", async (t) => {
      const withoutRetries = await startHaproxy({
        directory,
        replicas: [
          `127.0.0.1:${replicas.get("replica1")!.port}`,
          `127.0.0.1:${replicas.get("replica2")!.port}`,
        ],
        retries: false,
      });
      try {
        const { sent, failures, seconds } = await rollingRestart(withoutRetries);
        t.diagnostic(
          `rolling restart, retries off: ${sent} requests in ${seconds.toFixed(1)} s, ${failures.length} failed`,
        );
        assert.deepEqual(failures, []);
      } finally {
        await withoutRetries.stop();
      }
    });

    it("loses at most the requests in flight when a replica is killed with SIGKILL", async (t) => {
      const traffic = startTraffic(haproxy.url, apiKey);
      await delay(1_000);
      const victim = replicas.get("replica1")!;
      victim.signal("SIGKILL");
      await victim.exited;
      await waitForBalancer({ replica1: "DOWN", replica2: "UP" });
      await delay(1_000);
      await startReplica("replica1", victim.port);
      await waitForBalancer({ replica1: "UP", replica2: "UP" });
      await delay(1_000);
      await traffic.stop();
      t.diagnostic(
        `kill -9: ${traffic.sent()} requests, ${traffic.failures().length} failed: ${traffic.failures().join("; ")}`,
      );
      assert.ok(traffic.failures().length <= CLIENTS, traffic.failures().join("\n"));
    });

    it("is the configuration docs/scale-out.md shows", () => {
      const documented = readFileSync(
        fileURLToPath(new URL("../../../../docs/scale-out.md", import.meta.url)),
        "utf8",
      );
      assert.ok(
        documented.includes(readFileSync(HAPROXY_CONFIG, "utf8").trim()),
        "docs/scale-out.md quotes deploy/haproxy/haproxy.cfg",
      );
    });
  },
);
