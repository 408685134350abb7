/**
 * Errors made on the attestor's sender thread reach the recording thread through a structured
 * clone, which keeps an Error's message but drops its own properties. Sent as `toThreadError`
 * data and rebuilt with `fromThreadError`, an AbasError keeps its code, context and cause.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MessageChannel } from "node:worker_threads";

import {
  ABAS_RUNTIME__AGENT_NOT_REGISTERED,
  ABAS_RUNTIME__ATTESTOR_BATCH_FAILED,
  AbasError,
  isAbasError,
} from "@abas/errors";

import { fromThreadError, toThreadError, type ThreadError } from "../attestor/thread-errors.js";

/** What the other thread receives: the value after a real trip through a message port. */
async function acrossThreads(value: unknown): Promise<unknown> {
  const { port1, port2 } = new MessageChannel();
  try {
    const received = new Promise((resolve) => port2.once("message", resolve));
    port1.postMessage(value);
    return await received;
  } finally {
    port1.close();
    port2.close();
  }
}

describe("errors across the attestor's threads", () => {
  const agent = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
  const batchFailed = new AbasError(ABAS_RUNTIME__ATTESTOR_BATCH_FAILED, {
    queueDir: "/var/queue",
    batchId: 7,
    itemCount: 100,
    attempts: 5,
    cause: new AbasError(ABAS_RUNTIME__AGENT_NOT_REGISTERED, { agent }),
  });

  it("a bare structured clone loses an AbasError's code: the reason errors are sent as data", async () => {
    const cloned = await acrossThreads(batchFailed);
    assert.equal(isAbasError(cloned), false);
  });

  it("keeps an AbasError's code, context, message, stack and coded cause", async () => {
    const rebuilt = fromThreadError((await acrossThreads(toThreadError(batchFailed))) as ThreadError);
    assert.ok(isAbasError(rebuilt, ABAS_RUNTIME__ATTESTOR_BATCH_FAILED));
    assert.deepEqual({ ...rebuilt.context }, { ...batchFailed.context });
    assert.equal(rebuilt.message, batchFailed.message);
    assert.equal(rebuilt.stack, batchFailed.stack);
    assert.ok(isAbasError(rebuilt.cause, ABAS_RUNTIME__AGENT_NOT_REGISTERED));
    assert.equal(rebuilt.cause.context.agent, agent);
  });

  it("keeps another error's name, message and cause, and any other thrown value", async () => {
    const failure = new TypeError("fetch failed", { cause: new Error("ECONNREFUSED 127.0.0.1:8899") });
    const rebuilt = fromThreadError((await acrossThreads(toThreadError(failure))) as ThreadError) as Error;
    assert.equal(rebuilt.name, "TypeError");
    assert.equal(rebuilt.message, "fetch failed");
    assert.equal((rebuilt.cause as Error).message, "ECONNREFUSED 127.0.0.1:8899");
    assert.equal(
      fromThreadError((await acrossThreads(toThreadError("a string"))) as ThreadError),
      "a string",
    );
  });
});
