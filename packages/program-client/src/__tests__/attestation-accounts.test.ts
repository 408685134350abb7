import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
} from "@abas/errors";

import { decodeAttestationAccount } from "../accounts/attestation-account.js";
import { decodeBatchAccount } from "../accounts/batch-account.js";
import { ActionType } from "../action-types.js";
import {
  ATTESTATION_ACCOUNT_SIZE,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
} from "../constants.js";
import {
  attestationAccountBytes,
  ATTESTATION_SCHEMA,
  batchAccountBytes,
  BATCH_SCHEMA,
  CREDENTIAL,
} from "./account-bytes.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { bytesOf } from "./byte-builder.js";
import { addressOf, AGENT, MERKLE_ROOT, OPERATOR, SIGNATURE, STORED_HASH } from "./fixtures.js";

const envelopeOf = (nonce: Uint8Array, schema: typeof ATTESTATION_SCHEMA) => ({
  nonce,
  credential: CREDENTIAL,
  schema,
  signer: AGENT,
  expiry: 0n,
  tokenAccount: addressOf(0),
});

describe("decodeAttestationAccount", () => {
  it("decodes the 331-byte SAS attestation and its BehaviorAttestation data", () => {
    // Given a single attestation assembled from the documented layout
    const data = attestationAccountBytes();
    assert.equal(data.length, ATTESTATION_ACCOUNT_SIZE);
    // When it is decoded
    // Then the envelope and every data field have their values
    assert.deepEqual(decodeAttestationAccount(data), {
      ...envelopeOf(STORED_HASH, ATTESTATION_SCHEMA),
      actionType: ActionType.Decision,
      privacyMode: true,
      storedHash: STORED_HASH,
      agentSignature: SIGNATURE,
      operator: OPERATOR,
      timestamp: 1_700_000_100n,
      slot: 987_654n,
    });
  });

  it("returns byte fields of its own, even when decoding a Node Buffer", () => {
    // Given an attestation in a Buffer, whose slices share its memory
    const data = Buffer.from(attestationAccountBytes());
    const decoded = decodeAttestationAccount(data);
    // When the buffer is reused
    data.fill(0);
    // Then the decoded fields keep their values
    assert.deepEqual(
      [decoded.storedHash, decoded.agentSignature, decoded.nonce],
      [STORED_HASH, SIGNATURE, STORED_HASH],
    );
  });

  it("reports another first byte, then any size but 331", () => {
    const data = attestationAccountBytes();
    assertThrowsAbasError(() => decodeAttestationAccount(new Uint8Array()), ABAS_SDK__ACCOUNT_DATA_TOO_SHORT);
    assertThrowsAbasError(
      () => decodeAttestationAccount(Uint8Array.from([16, ...data.subarray(1)])),
      ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
    );
    assertThrowsAbasError(
      () => decodeAttestationAccount(data.subarray(0, 330)),
      ABAS_SDK__INVALID_ACCOUNT_SIZE,
    );
    assertThrowsAbasError(
      () => decodeAttestationAccount(batchAccountBytes()),
      ABAS_SDK__INVALID_ACCOUNT_SIZE,
    );
  });

  it("reports a data length other than 158, an unknown action type, a non-bool flag and a hash that is not 32 bytes", () => {
    // The bool is named; the others are refused by the generated decoder, which does not say where.
    const cases = [
      [{ dataLength: 157 }, undefined, /length prefix/],
      [{ dataLength: 159 }, undefined, /length prefix/],
      [{ actionType: 4 }, undefined, /enum byte is 4, expected one of 0-3/],
      [{ privacyMode: 2 }, "privacy_mode", /privacy_mode is 2, expected a bool/],
      [{ hashLength: 31 }, undefined, /length prefix/],
      [{ hashLength: 33 }, undefined, /length prefix/],
    ] as const;
    for (const [overrides, field, reason] of cases) {
      const error = assertThrowsAbasError(
        () => decodeAttestationAccount(attestationAccountBytes(overrides)),
        ABAS_SDK__MALFORMED_ACCOUNT_DATA,
      );
      assert.equal(error.context.accountType, "Attestation");
      assert.equal(error.context.field, field, JSON.stringify(overrides));
      assert.match(error.context.reason, reason, JSON.stringify(overrides));
    }
  });
});

describe("decodeBatchAccount", () => {
  it("decodes a pending batch of 3 items with 2 leaves published and its Merkle frontier", () => {
    // Given a batch account of 3 items, 2 leaves published, the 224-byte frontier after its fields
    const data = batchAccountBytes();
    assert.equal(data.length, BATCH_PENDING_ACCOUNT_SIZE);
    assert.equal(data.length, 560);
    // When it is decoded
    const batch = decodeBatchAccount(data);
    // Then the envelope and the fields have their values, and the batch is not complete
    assert.deepEqual(batch, {
      ...envelopeOf(MERKLE_ROOT, BATCH_SCHEMA),
      merkleRoot: MERKLE_ROOT,
      itemCount: 3,
      actionTypes: 0b0011,
      agentSignature: SIGNATURE,
      operator: OPERATOR,
      timestamp: 1_700_000_200n,
      slot: 987_700n,
      leavesPublished: 2,
      isComplete: false,
    });
  });

  it("decodes a complete batch: every leaf published, the frontier gone, 336 bytes", () => {
    const data = batchAccountBytes({ itemCount: 100, leavesPublished: 100 });
    assert.equal(data.length, BATCH_COMPLETE_ACCOUNT_SIZE);
    assert.equal(data.length, 336);
    const batch = decodeBatchAccount(data);
    assert.equal(batch.isComplete, true);
    assert.equal(batch.leavesPublished, 100);
  });

  it("reports a single attestation's data as malformed batch data", () => {
    const error = assertThrowsAbasError(
      () => decodeBatchAccount(attestationAccountBytes()),
      ABAS_SDK__MALFORMED_ACCOUNT_DATA,
    );
    assert.equal(error.context.accountType, "Batch attestation");
  });

  it("reports a length prefix that disagrees with its field in a batch of a valid size as malformed, not too short", () => {
    // Given a pending batch (560 bytes) whose Merkle root length says 31
    const data = batchAccountBytes();
    const rootLengthAt = 1 + 32 + 32 + 32 + 4;
    assert.equal(data[rootLengthAt], 32);
    data[rootLengthAt] = 31;
    // Then it is malformed
    assertThrowsAbasError(() => decodeBatchAccount(data), ABAS_SDK__MALFORMED_ACCOUNT_DATA);
  });

  it("reports each inconsistent field as malformed", () => {
    const cases = [
      [{ itemCount: 0, leavesPublished: 0 }, "item_count"],
      [{ itemCount: 101, leavesPublished: 0 }, "item_count"],
      [{ actionTypes: 0 }, "action_types"],
      [{ actionTypes: 16 }, "action_types"],
      [{ leavesPublished: 4 }, "leaves_published"],
      // a complete batch that still carries its frontier, and a pending one without it
      [{ leavesPublished: 3, frontier: bytesOf(224, 0) }, "frontier"],
      [{ leavesPublished: 2, frontier: bytesOf(0, 0), dataLength: 163 }, "frontier"],
      // a data length that disagrees with the fields: the generated decoder cannot say which
      [{ dataLength: 163 + 225 }, undefined],
    ] as const;
    for (const [overrides, field] of cases) {
      const error = assertThrowsAbasError(
        () => decodeBatchAccount(batchAccountBytes(overrides)),
        ABAS_SDK__MALFORMED_ACCOUNT_DATA,
      );
      assert.equal(
        error.context.field,
        field,
        JSON.stringify(overrides, (_, v) => (v instanceof Uint8Array ? v.length : v)),
      );
    }
  });

  it("reports truncated data as too short and extra data as the wrong size", () => {
    const data = batchAccountBytes();
    for (const length of [0, 1, 100, 101, 200, 300, data.length - 1]) {
      assertThrowsAbasError(
        () => decodeBatchAccount(data.subarray(0, length)),
        ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
      );
    }
    assertThrowsAbasError(
      () => decodeBatchAccount(Uint8Array.from([...data, 0])),
      ABAS_SDK__INVALID_ACCOUNT_SIZE,
    );
  });
});
