import { ABAS_SDK__MALFORMED_ACCOUNT_DATA, ABAS_SDK__UNKNOWN_ACCOUNT_TYPE, AbasError } from "@abas/errors";
import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { AccountDiscriminator, ATTESTATION_DATA_SIZE } from "../constants.js";
import { getSchemaKindFromName, type SchemaKind } from "../schemas.js";
import { AccountDataReader } from "./account-data-reader.js";
import { decodeAgentAccount, type AgentAccount } from "./agent-account.js";
import { decodeAttestationAccount, type AttestationAccount } from "./attestation-account.js";
import { decodeBatchAccount, type BatchAccount } from "./batch-account.js";
import { decodeCredentialAccount, type CredentialAccount } from "./credential-account.js";
import { decodeSchemaAccount, type SchemaAccount } from "./schema-account.js";

export type DecodedProgramAccount =
  | Readonly<{ type: "credential"; account: CredentialAccount }>
  | Readonly<{ type: "schema"; kind: SchemaKind; account: SchemaAccount }>
  | Readonly<{ type: "attestation"; account: AttestationAccount }>
  | Readonly<{ type: "batch"; account: BatchAccount }>
  | Readonly<{ type: "agent"; account: AgentAccount }>;

export type DecodeProgramAccountOptions = Readonly<{
  /**
   * The program's two Schema addresses (`deriveIssuerAddresses`). When given, an attestation's kind
   * is read from its schema field and any other schema is rejected; without them it is read from
   * the data length, which differs between the two layouts (158 bytes against 163, or 387 while a
   * batch's leaves are pending).
   */
  schemas?: Readonly<{ attestation: Address; batch: Address }>;
}>;

const SCHEMA_FIELD_OFFSET = 1 + 32 + 32;
const DATA_LENGTH_OFFSET = SCHEMA_FIELD_OFFSET + 32;

function attestationKind(data: ReadonlyUint8Array, options: DecodeProgramAccountOptions): SchemaKind {
  const reader = new AccountDataReader(data, "Attestation");
  reader.skip("header", SCHEMA_FIELD_OFFSET);
  if (options.schemas) {
    const schema = reader.address("schema");
    if (schema === options.schemas.attestation) return "attestation";
    if (schema === options.schemas.batch) return "batch";
    throw reader.malformed("schema", `${schema} is not a Schema of this program`);
  }
  reader.skip("schema", DATA_LENGTH_OFFSET - SCHEMA_FIELD_OFFSET);
  return reader.u32("data") === ATTESTATION_DATA_SIZE ? "attestation" : "batch";
}

/**
 * Decodes any account the program owns: the first byte tells the account type, a Schema's name
 * tells which Schema it is, and the schema (or data length) tells a single from a batch attestation.
 */
export function decodeProgramAccount(
  data: ReadonlyUint8Array,
  options: DecodeProgramAccountOptions = {},
): DecodedProgramAccount {
  const discriminator = new AccountDataReader(data, "Program").u8("discriminator");
  switch (discriminator) {
    case AccountDiscriminator.Credential:
      return { type: "credential", account: decodeCredentialAccount(data) };
    case AccountDiscriminator.Schema: {
      const account = decodeSchemaAccount(data);
      const kind = getSchemaKindFromName(account.name);
      if (!kind) {
        throw new AbasError(ABAS_SDK__MALFORMED_ACCOUNT_DATA, {
          accountType: "Schema",
          field: "name",
          reason: `${account.name} is not a Schema of this program`,
        });
      }
      return { type: "schema", kind, account };
    }
    case AccountDiscriminator.Attestation:
      return attestationKind(data, options) === "attestation"
        ? { type: "attestation", account: decodeAttestationAccount(data) }
        : { type: "batch", account: decodeBatchAccount(data) };
    case AccountDiscriminator.Agent:
      return { type: "agent", account: decodeAgentAccount(data) };
    default:
      throw new AbasError(ABAS_SDK__UNKNOWN_ACCOUNT_TYPE, { discriminator });
  }
}
