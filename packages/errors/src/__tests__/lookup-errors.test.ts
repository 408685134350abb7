/** The errors of finding and verifying an action on the ledger: their codes, ranges and messages. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { AbasError, isAbasError } from "../abas-error.js";
import {
  ABAS_RUNTIME__ATTESTATION_NOT_FOUND,
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_RUNTIME__BATCH_NOT_FOUND,
  ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
  ABAS_SDK__ATTESTATION_INDEX_REQUIRED,
} from "../codes.js";

const PROGRAM = "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN";
const ACCOUNT = "9QpL3vZ5G7Cx2tWbUeY1hK8mN4rS6dF3aJ2cV5bX7zQ1";

describe("lookup errors", () => {
  it("keep their numbers: runtime 2203-2206, SDK 3502", () => {
    assert.deepEqual(
      [
        ABAS_RUNTIME__ATTESTATION_NOT_FOUND,
        ABAS_RUNTIME__BATCH_NOT_FOUND,
        ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
        ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
        ABAS_SDK__ATTESTATION_INDEX_REQUIRED,
      ],
      [2203, 2204, 2205, 2206, 3502],
    );
  });

  it("name what the ledger does not hold", () => {
    const missing = new AbasError(ABAS_RUNTIME__ATTESTATION_NOT_FOUND, {
      address: ACCOUNT,
      programId: PROGRAM,
    });
    assert.ok(isAbasError(missing, ABAS_RUNTIME__ATTESTATION_NOT_FOUND));
    assert.equal(
      missing.message,
      `The ledger has no attestation or batch account of program ${PROGRAM} at ${ACCOUNT}`,
    );
    assert.equal(
      new AbasError(ABAS_RUNTIME__BATCH_NOT_FOUND, { batchAddress: ACCOUNT, programId: PROGRAM }).message,
      `The ledger has no batch account of program ${PROGRAM} at ${ACCOUNT}`,
    );
    assert.equal(
      new AbasError(ABAS_RUNTIME__TRANSACTION_NOT_FOUND, { signature: "5x" }).message,
      "The ledger has no transaction 5x",
    );
    assert.equal(
      new AbasError(ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE, { batchAddress: ACCOUNT, index: 7, itemCount: 3 })
        .message,
      `Batch ${ACCOUNT} has 3 items, numbered from 0: there is no item 7`,
    );
  });

  it("say how to search without an index", () => {
    const error = new AbasError(ABAS_SDK__ATTESTATION_INDEX_REQUIRED, { searchingFor: "who attested it" });
    assert.match(error.message, /^Finding who attested it needs an attestation index/);
    assert.match(error.message, /narrow the search with agent, txSignature or batchAddress$/);
  });
});
