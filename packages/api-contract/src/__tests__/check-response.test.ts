import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { FormatRegistry, type TSchema } from "@sinclair/typebox";

import * as contract from "../index.js";
import type { ApiAttestation, ApiHealth as ApiHealthBody } from "../index.js";
import {
  ApiAttestationLookup,
  ApiAttestationPage,
  ApiHealth,
  ApiProblem,
  findContractMismatch,
} from "../index.js";

const ATTESTATION: ApiAttestation = {
  id: "AvWmXtjfBoHBctiVLvHg2d6f4SnDdp9HnHGNk6B6Zqt5:2",
  kind: "batch",
  agent: "GMiUU8V53C3FezywWX9AkhyvxbHz9TNTACvhPnD9y3HD",
  operator: "5ndYQVthzzDPH7wcSLxXbup63fUybVQRg6rGQVd8Ki65",
  actionType: "Decision",
  privacy: false,
  storedHash: "977a246fe10f5f92b0df93619e9f2b09b6c4688754114070fc87399831d5f16b",
  agentSignature: "yEQ6dyq3nDXgiYQLm5TDz9oZyFsp6zHgeYxLExYdqgHkeo2aXPCYSSLKtZt1LwgbzpmuzXZ3qZfMhoxKHQVqtiU",
  txSignature: "2X9Eh5Tf6jWDsgzmaAtm2J8vQvmTYdb7Me1RMZwGkGcNX58gJGnPezkUoHF8eDFyxtLFzeGAP2DhQr8oGyzywSFT",
  slot: 8500,
  timestamp: 1763655600,
  batch: {
    address: "AvWmXtjfBoHBctiVLvHg2d6f4SnDdp9HnHGNk6B6Zqt5",
    index: 2,
    merkleRoot: "ece3122fd281c08c862b89ae0d2da5d87ef4892614efc319123f43035c9a74ed",
  },
};

const pageOf = (...data: unknown[]) => ({ data, pagination: { nextCursor: "ODUwMC41", hasMore: true } });

const HEALTH: ApiHealthBody = {
  status: "degraded",
  causes: [{ code: 4401, name: "ABAS_API__LEDGER_UNREACHABLE", detail: "connection refused" }],
  database: { status: "ok", dialect: "sqlite" },
  ledger: { status: "unreachable", slot: null },
  indexer: {
    status: "ok",
    indexedSlot: 9000,
    lagSlots: null,
    lastIngestAt: "2026-11-21T18:14:35.105Z",
    heartbeatAt: new Date(Date.UTC(2026, 10, 21, 18, 14, 35)).toISOString(),
    lastErrorAt: null,
    divergence: null,
  },
  checkedAt: "2026-11-21T19:14:47+01:00",
};

describe("findContractMismatch", () => {
  it("finds nothing in bodies that match, also when they carry fields the contract does not name", () => {
    assert.equal(findContractMismatch(ApiAttestationPage, pageOf(ATTESTATION)), undefined);
    assert.equal(
      findContractMismatch(ApiAttestationLookup, {
        matchedBy: "id",
        data: [{ ...ATTESTATION, batch: null }],
      }),
      undefined,
    );
    assert.equal(findContractMismatch(ApiHealth, HEALTH), undefined);
    // A newer server may add fields: an older client still reads the ones it knows.
    assert.equal(
      findContractMismatch(ApiAttestationPage, { ...pageOf({ ...ATTESTATION, new: 1 }), more: 2 }),
      undefined,
    );
  });

  it("names the first mismatching value by its JSON Pointer, with what was expected and found", () => {
    assert.deepEqual(
      findContractMismatch(ApiAttestationPage, pageOf(ATTESTATION, { ...ATTESTATION, slot: "8500" })),
      {
        path: "/data/1/slot",
        message: 'expected integer, got string "8500"',
      },
    );
    assert.deepEqual(
      findContractMismatch(ApiAttestationPage, pageOf({ ...ATTESTATION, actionType: "Payment" })),
      {
        path: "/data/0/actionType",
        message: 'expected one of Transaction, ToolCall, Decision, ModelInvocation, got string "Payment"',
      },
    );
    const { storedHash: _left, ...withoutHash } = ATTESTATION;
    assert.deepEqual(findContractMismatch(ApiAttestationPage, pageOf(withoutHash)), {
      path: "/data/0/storedHash",
      message: "expected a value (required), got nothing",
    });
    assert.deepEqual(findContractMismatch(ApiAttestationPage, "<html>"), {
      path: "",
      message: 'expected object, got string "<html>"',
    });
  });

  it("looks inside a nullable object for the field that is wrong, and names a union's variants otherwise", () => {
    const badIndex = { ...ATTESTATION, batch: { ...ATTESTATION.batch, index: -1 } };
    assert.deepEqual(findContractMismatch(ApiAttestationPage, pageOf(badIndex)), {
      path: "/data/0/batch/index",
      message: "expected integer to be greater or equal to 0, got number -1",
    });
    assert.deepEqual(findContractMismatch(ApiAttestationPage, pageOf({ ...ATTESTATION, batch: 7 })), {
      path: "/data/0/batch",
      message: "expected object or null, got number 7",
    });
    assert.deepEqual(findContractMismatch(ApiAttestationPage, pageOf({ ...ATTESTATION, kind: "pair" })), {
      path: "/data/0/kind",
      message: 'expected "single" or "batch", got string "pair"',
    });
  });

  it("checks date-time strings as RFC 3339", () => {
    for (const checkedAt of ["yesterday", "2026-11-21", "2026-13-01T00:00:00Z", "2026-11-21T25:00:00Z"]) {
      assert.equal(findContractMismatch(ApiHealth, { ...HEALTH, checkedAt })?.path, "/checkedAt", checkedAt);
    }
  });

  it("reads a problem document, whose context is optional", () => {
    const problem = {
      type: "urn:abas:error:invalid-cursor",
      title: "Invalid cursor",
      status: 400,
      detail: "The cursor was not issued by this API",
      code: 4001,
      name: "ABAS_API__INVALID_CURSOR",
      requestId: "3ea562ae",
    };
    assert.equal(findContractMismatch(ApiProblem, problem), undefined);
    assert.equal(findContractMismatch(ApiProblem, { ...problem, context: { reason: "x" } }), undefined);
    assert.deepEqual(findContractMismatch(ApiProblem, { ...problem, code: "4001" })?.path, "/code");
  });
});

describe("the contract's schemas", () => {
  /** Every `format` a schema (or a schema inside it) names. */
  function formatsOf(schema: unknown, found = new Set<string>()): Set<string> {
    if (typeof schema !== "object" || schema === null) return found;
    const { format } = schema as { format?: unknown };
    if (typeof format === "string") found.add(format);
    for (const value of Object.values(schema)) formatsOf(value, found);
    return found;
  }

  it("name only string formats the checker knows", () => {
    const schemas = Object.values(contract).filter(
      (value): value is TSchema => typeof value === "object" && value !== null && "type" in value,
    );
    const formats = new Set(schemas.flatMap((schema) => [...formatsOf(schema)]));
    assert.ok(formats.has("date-time"), "the health report's times are date-times");
    for (const format of formats) assert.ok(FormatRegistry.Has(format), `${format} is registered`);
    assert.deepEqual(Object.keys(contract.CONTRACT_STRING_FORMATS).sort(), [...formats].sort());
  });
});
