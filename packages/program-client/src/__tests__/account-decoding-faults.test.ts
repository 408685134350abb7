import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
  ABAS_SDK__UNKNOWN_ACCOUNT_TYPE,
  isAbasError,
} from "@abas/errors";

import { decodeProgramAccount } from "../accounts/program-account.js";
import {
  agentAccountBytes,
  attestationAccountBytes,
  batchAccountBytes,
  credentialAccountBytes,
  DOCUMENTED_BATCH_SCHEMA,
  schemaAccountBytes,
} from "./account-bytes.js";

const DECODING_CODES: readonly number[] = [
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
  ABAS_SDK__UNKNOWN_ACCOUNT_TYPE,
];

/** Decodes `data`; anything thrown must be one of the named account decoding errors. */
function decodesOrNamesTheFault(data: Uint8Array, what: string): void {
  try {
    decodeProgramAccount(data);
  } catch (error) {
    assert.ok(
      isAbasError(error) && DECODING_CODES.includes(error.context.__code),
      `${what}: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
}

const ACCOUNTS = {
  credential: credentialAccountBytes(),
  schema: schemaAccountBytes(DOCUMENTED_BATCH_SCHEMA),
  attestation: attestationAccountBytes(),
  "pending batch": batchAccountBytes(),
  "complete batch": batchAccountBytes({ itemCount: 5, leavesPublished: 5 }),
  agent: agentAccountBytes(),
};

describe("decoding corrupt account data", () => {
  for (const [name, valid] of Object.entries(ACCOUNTS)) {
    it(`names every fault of a ${name} account: each truncation, each corrupt byte, a trailing byte`, () => {
      for (let length = 0; length < valid.length; length++) {
        decodesOrNamesTheFault(valid.subarray(0, length), `${name} cut to ${length} bytes`);
      }
      for (let offset = 0; offset < valid.length; offset++) {
        for (const value of [0x00, 0x01, 0x02, 0x7f, 0x80, 0xff]) {
          const corrupt = Uint8Array.from(valid);
          corrupt[offset] = value;
          decodesOrNamesTheFault(corrupt, `${name} with byte ${offset} set to ${value}`);
        }
      }
      decodesOrNamesTheFault(Uint8Array.from([...valid, 0]), `${name} with a trailing byte`);
    });
  }
});
