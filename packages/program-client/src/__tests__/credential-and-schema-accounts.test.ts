import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
} from "@abas/errors";

import { decodeCredentialAccount } from "../accounts/credential-account.js";
import { decodeSchemaAccount } from "../accounts/schema-account.js";
import { CREDENTIAL_ACCOUNT_SIZE } from "../constants.js";
import { getSchemaAccountSize, SCHEMAS } from "../schemas.js";
import {
  credentialAccountBytes,
  CREDENTIAL,
  DOCUMENTED_ATTESTATION_SCHEMA,
  DOCUMENTED_BATCH_SCHEMA,
  schemaAccountBytes,
  type SchemaBytesFields,
} from "./account-bytes.js";
import { assertThrowsAbasError } from "./assert-abas-error.js";
import { ByteBuilder, bytesOf } from "./byte-builder.js";
import { addressOf, PROGRAM_ID } from "./fixtures.js";

describe("decodeCredentialAccount", () => {
  it("decodes the program's 45-byte Credential", () => {
    const data = credentialAccountBytes();
    assert.equal(data.length, CREDENTIAL_ACCOUNT_SIZE);
    assert.deepEqual(decodeCredentialAccount(data), {
      authority: PROGRAM_ID,
      name: "ABAS",
      authorizedSigners: [],
    });
  });

  it("decodes any SAS Credential, with its authorized signers", () => {
    const data = credentialAccountBytes({ name: "Other", signers: [bytesOf(32, 1), bytesOf(32, 2)] });
    assert.deepEqual(decodeCredentialAccount(data).authorizedSigners, [addressOf(1), addressOf(2)]);
  });

  it("reports every truncation as too short, with the size the layout needs up to the field it cut", () => {
    const data = credentialAccountBytes();
    const cuts = [
      [0, 1], // discriminator
      [20, 33], // authority
      [35, 37], // the name's length
      [40, 41], // the name
      [43, 45], // the signer count
      // Without its count the signer list would decode as empty: the re-encoding tells it is missing.
      [41, 45],
    ] as const;
    for (const [length, requiredSize] of cuts) {
      const error = assertThrowsAbasError(
        () => decodeCredentialAccount(data.subarray(0, length)),
        ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
      );
      assert.deepEqual(
        [error.context.accountType, error.context.requiredSize, error.context.actualSize],
        ["Credential", requiredSize, length],
      );
    }
  });

  it("reports a signer count larger than the data without reading past it", () => {
    const data = credentialAccountBytes();
    new DataView(data.buffer).setUint32(41, 0xffffffff, true);
    assertThrowsAbasError(() => decodeCredentialAccount(data), ABAS_SDK__ACCOUNT_DATA_TOO_SHORT);
  });

  it("reports another first byte, trailing bytes and a name that is not UTF-8", () => {
    const data = credentialAccountBytes();
    assertThrowsAbasError(
      () => decodeCredentialAccount(Uint8Array.from([1, ...data.subarray(1)])),
      ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
    );
    assertThrowsAbasError(
      () => decodeCredentialAccount(Uint8Array.from([...data, 0])),
      ABAS_SDK__INVALID_ACCOUNT_SIZE,
    );
    const badName = Uint8Array.from(data);
    badName[37] = 0xff;
    const error = assertThrowsAbasError(
      () => decodeCredentialAccount(badName),
      ABAS_SDK__MALFORMED_ACCOUNT_DATA,
    );
    assert.equal(error.context.field, "name");
  });
});

describe("decodeSchemaAccount", () => {
  for (const [kind, documented] of [
    ["attestation", DOCUMENTED_ATTESTATION_SCHEMA],
    ["batch", DOCUMENTED_BATCH_SCHEMA],
  ] as const) {
    it(`decodes the ${documented.name} Schema exactly as documented`, () => {
      // Given the Schema assembled from the documentation
      const data = schemaAccountBytes(documented);
      // When it is decoded
      const schema = decodeSchemaAccount(data);
      // Then it has the documented content, which is also what the package declares
      assert.deepEqual(schema, {
        credential: CREDENTIAL,
        name: documented.name,
        description: documented.description,
        layout: documented.layout,
        fieldNames: documented.fieldNames,
        isPaused: false,
        version: documented.version,
      });
      const declared = SCHEMAS[kind];
      assert.equal(declared.name, schema.name);
      assert.equal(declared.version, schema.version);
      assert.equal(declared.description, schema.description);
      assert.deepEqual(declared.layout, schema.layout);
      assert.deepEqual(declared.fieldNames, schema.fieldNames);
      assert.equal(data.length, getSchemaAccountSize(kind));
    });
  }

  it("reports a layout and field names of different lengths", () => {
    const data = schemaAccountBytes({ ...DOCUMENTED_ATTESTATION_SCHEMA, layout: [0, 10] });
    const error = assertThrowsAbasError(() => decodeSchemaAccount(data), ABAS_SDK__MALFORMED_ACCOUNT_DATA);
    assert.equal(error.context.field, "field_names");
  });

  it("reports a field name that runs past the field_names bytes as malformed, not as too short", () => {
    // Given field_names whose single name claims 10 bytes but the field holds 4 + 3
    const data = new ByteBuilder()
      .u8(1)
      .bytes(bytesOf(32, 0xc1))
      .string("S")
      .string("D")
      .vec([0])
      .vec(new ByteBuilder().u32(10).bytes([0x61, 0x62, 0x63]).build())
      .u8(0)
      .u8(1)
      .build();
    const error = assertThrowsAbasError(() => decodeSchemaAccount(data), ABAS_SDK__MALFORMED_ACCOUNT_DATA);
    assert.equal(error.context.accountType, "Schema");
  });

  it("reports a description or a field name that is not UTF-8, naming it", () => {
    const [firstName, ...otherNames] = DOCUMENTED_ATTESTATION_SCHEMA.fieldNames;
    const cases: [SchemaBytesFields, string][] = [
      [{ ...DOCUMENTED_ATTESTATION_SCHEMA, description: "caf\u00e9" }, "description"],
      [
        { ...DOCUMENTED_ATTESTATION_SCHEMA, fieldNames: [`${firstName}\u00e9`, ...otherNames] },
        "field_names",
      ],
    ];
    for (const [fields, field] of cases) {
      // Given the text's "\u00e9" (c3 a9) with its second byte replaced: c3 41 is not UTF-8
      const data = schemaAccountBytes(fields);
      const at = data.findIndex((byte, i) => byte === 0xa9 && data[i - 1] === 0xc3);
      assert.ok(at > 0);
      data[at] = 0x41;
      const error = assertThrowsAbasError(() => decodeSchemaAccount(data), ABAS_SDK__MALFORMED_ACCOUNT_DATA);
      assert.equal(error.context.field, field);
    }
  });

  it("reports an is_paused byte that is not a bool", () => {
    const data = schemaAccountBytes({ ...DOCUMENTED_BATCH_SCHEMA, isPaused: 2 });
    const error = assertThrowsAbasError(() => decodeSchemaAccount(data), ABAS_SDK__MALFORMED_ACCOUNT_DATA);
    assert.equal(error.context.field, "is_paused");
  });

  it("reports truncation, trailing bytes and another first byte", () => {
    const data = schemaAccountBytes(DOCUMENTED_ATTESTATION_SCHEMA);
    for (const length of [0, 1, 33, 40, 100, data.length - 1]) {
      assertThrowsAbasError(
        () => decodeSchemaAccount(data.subarray(0, length)),
        ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
      );
    }
    assertThrowsAbasError(
      () => decodeSchemaAccount(Uint8Array.from([...data, 1])),
      ABAS_SDK__INVALID_ACCOUNT_SIZE,
    );
    assertThrowsAbasError(
      () => decodeSchemaAccount(Uint8Array.from([0, ...data.subarray(1)])),
      ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
    );
  });
});
