import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { ABAS_SDK__INVALID_BYTE_LENGTH, ABAS_SDK__EMPTY_MERKLE_TREE } from "../codes.js";
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

  it("leaves a placeholder whose value is missing visible", () => {
    const message = getAbasErrorMessage(ABAS_SDK__INVALID_BYTE_LENGTH, { field: "salt" });
    assert.equal(message, "salt must be $expectedLength bytes long, got $actualLength");
  });

  it("formats a code without context as its plain message", () => {
    assert.equal(getAbasErrorMessage(ABAS_SDK__EMPTY_MERKLE_TREE), "A Merkle tree needs at least one leaf");
  });
});
