/**
 * An agent process under load, to be killed: it opens the attestor on a queue directory and
 * records an action every millisecond or so, writing each action hash to stdout (synchronously)
 * only after `record` returned. Its configuration comes as JSON in ABAS_ATTESTOR_UNDER_LOAD.
 *
 *   node --import tsx attestor-under-load.ts
 */
import { writeSync } from "node:fs";

import { Attestor, type QueueDurability } from "../../attestor/index.js";

export type AttestorUnderLoadConfig = Readonly<{
  rpcUrl: string;
  programId: string;
  agentSecretKey: number[];
  operatorSecretKey: number[];
  queueDir: string;
  /** Tells this run's payloads apart from other runs'. */
  run: string;
  /** Actions recorded per millisecond tick. */
  actionsPerTick: number;
  /** The queue's durability; default "fsync". */
  durability?: QueueDurability;
}>;

const config = JSON.parse(process.env.ABAS_ATTESTOR_UNDER_LOAD ?? "") as AttestorUnderLoadConfig;
const attestor = await Attestor.open({
  client: {
    rpcUrl: config.rpcUrl,
    programId: config.programId,
    agentKeypair: Uint8Array.from(config.agentSecretKey),
  },
  operatorKeypair: Uint8Array.from(config.operatorSecretKey),
  queueDir: config.queueDir,
  maxBatchDelayMs: 100,
  durability: config.durability ?? "fsync",
});
let index = 0;
setInterval(() => {
  for (let i = 0; i < config.actionsPerTick; i++) {
    const { actionHash } = attestor.record({
      actionType: "ToolCall",
      payload: { run: config.run, index: index++ },
    });
    writeSync(1, `${actionHash}\n`);
  }
}, 1);
