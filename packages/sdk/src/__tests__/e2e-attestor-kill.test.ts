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
import { pidNamespaceSkip } from "../../../dir-lock/src/__tests__/support/pid-namespace.js";

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

  /** A registered agent whose processes record on `queueDir` under load. */
  async function agentUnderLoad(queueDir: string) {
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
    return { agentSecretKey, operatorSecretKey, client, config };
  }

  /**
   * Resumes the queue in this process and checks the ledger: every batch complete, every action
   * whose record returned there exactly once, and no action twice.
   */
  async function assertResumedExactlyOnce(
    agent: Awaited<ReturnType<typeof agentUnderLoad>>,
    queueDir: string,
    returned: readonly string[],
  ): Promise<void> {
    const resumed = await Attestor.open({
      client: { rpcUrl: ledger.rpcUrl, agentKeypair: agent.agentSecretKey, programId: ledger.programId },
      operatorKeypair: agent.operatorSecretKey,
      queueDir,
    });
    await resumed.flush();
    const { confirmed } = resumed.metrics;
    await resumed.close();
    assert.ok(confirmed > 0, "the last kill left nothing to resume");
    const batches = await readAgentBatches(ledger, agent.client.agentAddress);
    assert.ok(batches.every((batch) => batch.isComplete));
    const leaves = countLeaves(batches);
    const lost = returned.filter((hash) => leaves.get(hash) === undefined);
    const duplicated = [...leaves].filter(([, count]) => count > 1);
    assert.deepEqual({ lost: lost.length, duplicated: duplicated.length }, { lost: 0, duplicated: 0 });
  }

  it(`loses and duplicates no recorded action over ${KILLS} kills`, async () => {
    // Given a registered agent
    const agent = await agentUnderLoad(queueDir);
    // When agent processes recording under load are killed with SIGKILL mid-way, one after the other
    const returned: string[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      // Both durabilities: "write" leaves each action in the file cache, which outlives the process.
      const durability = kill % 2 === 0 ? "write" : "fsync";
      const recorded = await killAttestorUnderLoad(
        { ...agent.config, run: `kill ${kill}`, durability },
        150 + 90 * kill,
      );
      returned.push(...recorded);
    }
    // Then a new attestor resumes the queue, and every action whose record returned is on the
    // ledger exactly once
    await assertResumedExactlyOnce(agent, queueDir, returned);
    assert.ok(returned.length >= KILLS * 150);
  });

  it(
    "resumes the queue of a container killed as process 1 when the next container runs as process 1 too",
    { skip: pidNamespaceSkip() },
    async () => {
      // Given a registered agent whose queue outlives its containers (a volume)
      const volume = mkdtempSync(join(tmpdir(), "abas-attestor-container-"));
      try {
        const agent = await agentUnderLoad(volume);
        // When its agent runs as process 1 of a pid namespace of its own, as a container's entry
        // point does, and is killed with SIGKILL under load, twice: each new container's agent is
        // process 1 as well, and finds the lock that process 1 of the last one left
        const returned: string[] = [];
        for (const container of [1, 2]) {
          returned.push(
            ...(await killAttestorUnderLoad({ ...agent.config, run: `container ${container}` }, 200, {
              inNewPidNamespace: true,
            })),
          );
        }
        // Then each took the queue over and recorded, and a new attestor resumes it with every
        // action whose record returned on the ledger exactly once
        assert.ok(returned.length >= 400);
        await assertResumedExactlyOnce(agent, volume, returned);
      } finally {
        rmSync(volume, { recursive: true, force: true });
      }
    },
  );
});
