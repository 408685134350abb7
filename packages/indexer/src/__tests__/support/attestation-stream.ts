/**
 * A background stream of attestations through the SDK, as agents in production would send them:
 * singles (some in privacy mode), small batches, and now and then an attestation the program
 * refuses (it lands as a failed transaction that counts against the agent).
 */
import { ActionType } from "@abas/program-client";

import { randomActionHash, sendRefusedAttest, type Agent } from "./ledger-actors.js";
import type { TestLedger } from "./test-ledger.js";

export type StreamCounts = { singles: number; batches: number; batchItems: number; refusals: number };

export type AttestationStream = Readonly<{
  counts: StreamCounts;
  /** Lets the current sends finish, then resolves; rejects with the first error a send met. */
  stop: () => Promise<void>;
}>;

const ACTION_TYPES = ["ToolCall", "Decision", "ModelInvocation"] as const;

function pick<T>(values: readonly T[]): T {
  return values[Math.floor(Math.random() * values.length)]!;
}

/** `agents` must allow ToolCall, Decision and ModelInvocation, and not Transaction (refusals use it). */
export function startAttestationStream(ledger: TestLedger, agents: readonly Agent[]): AttestationStream {
  const counts: StreamCounts = { singles: 0, batches: 0, batchItems: 0, refusals: 0 };
  let stopping = false;
  const loop = async (agent: Agent): Promise<void> => {
    const operatorKeypair = agent.operator.secretKey;
    while (!stopping) {
      const choice = Math.random();
      if (choice < 0.6) {
        await agent.client.attest({
          operatorKeypair,
          actionHash: randomActionHash(),
          actionType: pick(ACTION_TYPES),
          privacyMode: Math.random() < 0.3,
        });
        counts.singles += 1;
      } else if (choice < 0.9) {
        const size = 2 + Math.floor(Math.random() * 5);
        await agent.client.batchAttest({
          operatorKeypair,
          attestations: Array.from({ length: size }, () => ({
            actionHash: randomActionHash(),
            actionType: pick(ACTION_TYPES),
            privacyMode: Math.random() < 0.3,
          })),
        });
        counts.batches += 1;
        counts.batchItems += size;
      } else {
        await sendRefusedAttest(ledger, agent, ActionType.Transaction);
        counts.refusals += 1;
      }
    }
  };
  const running = Promise.all(agents.map(loop));
  return {
    counts,
    stop: async () => {
      stopping = true;
      await running;
    },
  };
}
