import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_RUNTIME__ATTESTOR_BATCH_FAILED,
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_SDK__INVALID_MERKLE_LEAF_INDEX,
  ABAS_SDK__ATTESTOR_QUEUE_FULL,
  ABAS_SDK__ATTESTOR_QUEUE_LOCKED,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__EMPTY_MERKLE_TREE,
} from "../codes.js";
import { getAbasErrorMessage } from "../format-message.js";
import { AbasErrorMessages } from "../messages.js";
import { ALL_CODES } from "./all-codes.js";

describe("error messages", () => {
  it("has a non-empty message for every code", () => {
    for (const [name, code] of ALL_CODES) {
      const message: unknown = AbasErrorMessages[code];
      assert.equal(typeof message, "string", `${name} has no message`);
      assert.notEqual((message as string).trim(), "", `${name} has an empty message`);
    }
  });

  it("has no message for a code that does not exist", () => {
    // Given the codes that have a message
    const messageCodes = Object.keys(AbasErrorMessages).map(Number).sort();
    // Then they are exactly the exported codes
    assert.deepEqual(messageCodes, ALL_CODES.map(([, code]) => code).sort());
  });

  it("fills $placeholders from the context", () => {
    // Given the message of a code with context
    // When it is formatted with that context
    const message = getAbasErrorMessage(ABAS_SDK__INVALID_BYTE_LENGTH, {
      field: "storedHash",
      expectedLength: 32,
      actualLength: 31,
    });
    // Then every placeholder is replaced
    assert.equal(message, "storedHash must be 32 bytes long, got 31");
  });

  it("shows a byte array as its length in bytes, one byte in the singular", () => {
    const messageOf = (actualLength: Uint8Array) =>
      getAbasErrorMessage(ABAS_SDK__INVALID_BYTE_LENGTH, { field: "salt", expectedLength: 32, actualLength });
    assert.equal(messageOf(new Uint8Array(1)), "salt must be 32 bytes long, got 1 byte");
    assert.equal(messageOf(new Uint8Array(31)), "salt must be 32 bytes long, got 31 bytes");
  });

  it("leaves a placeholder whose value is missing visible", () => {
    const message = getAbasErrorMessage(ABAS_SDK__INVALID_BYTE_LENGTH, { field: "salt" });
    assert.equal(message, "salt must be $expectedLength bytes long, got $actualLength");
  });

  it("gives a count of 1 the singular of the noun after it, and any other count the plural", () => {
    const failed = (itemCount: number, attempts: number) =>
      getAbasErrorMessage(ABAS_RUNTIME__ATTESTOR_BATCH_FAILED, {
        queueDir: "/q",
        batchId: 3,
        itemCount,
        attempts,
      });
    assert.match(failed(1, 1), /^Batch 3 of the attestor of \/q \(1 action\) failed 1 time; /);
    assert.match(failed(0, 2), /^Batch 3 of the attestor of \/q \(0 actions\) failed 2 times; /);
    assert.equal(
      getAbasErrorMessage(ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE, {
        batchAddress: "B",
        itemCount: 1,
        index: 1,
      }),
      "Batch B has 1 item, numbered from 0: there is no item 1",
    );
    assert.equal(
      getAbasErrorMessage(ABAS_SDK__INVALID_MERKLE_LEAF_INDEX, { index: 1, leafCount: 1 }),
      "Leaf index 1 is outside a tree of 1 leaf",
    );
  });

  it("formats a code without context as its plain message", () => {
    assert.equal(getAbasErrorMessage(ABAS_SDK__EMPTY_MERKLE_TREE), "A Merkle tree needs at least one leaf");
  });

  it("tells an attestor's user what to do about its queue", () => {
    // Given the attestor's errors with their context
    // Then each message names the queue and the way out
    assert.equal(
      getAbasErrorMessage(ABAS_SDK__ATTESTOR_QUEUE_FULL, { queueDir: "/q", maxQueuedActions: 10 }),
      "The attestor of /q already holds 10 actions not yet confirmed; the ledger is slower than the agent, wait for flush() or raise maxQueuedActions",
    );
    assert.equal(
      getAbasErrorMessage(ABAS_SDK__ATTESTOR_QUEUE_LOCKED, {
        queueDir: "/q",
        lockFile: "/q/lock.3",
        pid: 42,
      }),
      "The queue /q is in use by process 42; one attestor at a time may own a queue (if that process is not an attestor, empty /q/lock.3; never delete it)",
    );
    assert.match(
      getAbasErrorMessage(ABAS_RUNTIME__ATTESTOR_BATCH_FAILED, {
        queueDir: "/q",
        batchId: 3,
        itemCount: 100,
        attempts: 5,
      }),
      /^Batch 3 of the attestor of \/q \(100 actions\) failed 5 times; it stays in the queue/,
    );
  });
});
