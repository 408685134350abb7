/**
 * kill -9 of an agent process that records actions with the attestor under load: a new attestor
 * on the same queue resumes, and every action whose `record` returned is on the ledger exactly
 * once. The child is killed several times in a row, each new child resuming its predecessor's
 * queue (alternately with "fsync" and "write" durability); the last resume is done by this process.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { Attestor } from "../attestor/index.js";
import { AttestationClient } from "../client.js";
import type { AttestorUnderLoadConfig } from "./support/attestor-under-load.js";
import { generateSecretKey } from "../keypair.js";
import { countLeaves, readAgentBatches } from "./support/ledger-batches.js";
import { fundedSecretKey, startTestLedger, type TestLedger } from "./support/local-ledger.js";
import { killAttestorUnderLoad } from "./support/kill-attestor-under-load.js";

const KILLS = 3;

describe("Attestor killed with SIGKILL under load", () => {
  let ledger: TestLedger;
  let queueDir: string;

  before(async () => {
    ledger = await startTestLedger();
    queueDir = mkdtempSync(join(tmpdir(), "abas-attestor-kill-"));
  });
  after(async () => {
    await ledger?.stop();
    rmSync(queueDir, { recursive: true, force: true });
  });

  it(`loses and duplicates no recorded action over ${KILLS} kills`, async () => {
    // Given a registered agent
    const agentSecretKey = generateSecretKey();
    const operatorSecretKey = await fundedSecretKey(ledger, 100n * 1_000_000_000n);
    const client = new AttestationClient({
      rpcUrl: ledger.rpcUrl,
      agentKeypair: agentSecretKey,
      programId: ledger.programId,
    });
    await client.registerAgent({ operatorKeypair: operatorSecretKey });
    const config: Omit<AttestorUnderLoadConfig, "run"> = {
      rpcUrl: ledger.rpcUrl,
      programId: ledger.programId,
      agentSecretKey: [...agentSecretKey],
      operatorSecretKey: [...operatorSecretKey],
      queueDir,
      actionsPerTick: 2,
    };
    // When agent processes recording under load are killed with SIGKILL mid-way, one after the other
    const returned: string[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      // Both durabilities: "write" leaves each action in the file cache, which outlives the process.
      const durability = kill % 2 === 0 ? "write" : "fsync";
      const recorded = await killAttestorUnderLoad(
        { ...config, run: `kill ${kill}`, durability },
        150 + 90 * kill,
      );
      returned.push(...recorded);
    }
    // And a new attestor opens the queue
    const resumed = await Attestor.open({
      client: { rpcUrl: ledger.rpcUrl, agentKeypair: agentSecretKey, programId: ledger.programId },
      operatorKeypair: operatorSecretKey,
      queueDir,
    });
    await resumed.flush();
    const { confirmed } = resumed.metrics;
    await resumed.close();
    // Then it had work left by the last kill
    assert.ok(confirmed > 0, "the last kill left nothing to resume");
    // And every batch of the agent is complete on the ledger
    const batches = await readAgentBatches(ledger, client.agentAddress);
    assert.ok(batches.every((batch) => batch.isComplete));
    // And every action whose record returned is there exactly once, and no action twice
    const leaves = countLeaves(batches);
    const lost = returned.filter((hash) => leaves.get(hash) === undefined);
    const duplicated = [...leaves].filter(([, count]) => count > 1);
    assert.deepEqual({ lost: lost.length, duplicated: duplicated.length }, { lost: 0, duplicated: 0 });
    assert.ok(returned.length >= KILLS * 150);
  });
});
