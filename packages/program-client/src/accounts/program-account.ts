import { ABAS_SDK__ACCOUNT_DATA_TOO_SHORT, ABAS_SDK__UNKNOWN_ACCOUNT_TYPE, AbasError } from "@abas/errors";
import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { AccountDiscriminator, ATTESTATION_ACCOUNT_SIZE } from "../constants.js";
import { getSchemaKindFromName, type SchemaKind } from "../schemas.js";
import { decodeAgentAccount, type AgentAccount } from "./agent-account.js";
import { decodeAttestationAccount, type AttestationAccount } from "./attestation-account.js";
import { decodeBatchAccount, type BatchAccount } from "./batch-account.js";
import { decodeCredentialAccount, type CredentialAccount } from "./credential-account.js";
import { malformedAccountData } from "./generated-account.js";
import { decodeSchemaAccount, type SchemaAccount } from "./schema-account.js";

export type DecodedProgramAccount =
  | Readonly<{ type: "credential"; account: CredentialAccount }>
  | Readonly<{ type: "schema"; kind: SchemaKind; account: SchemaAccount }>
  | Readonly<{ type: "attestation"; account: AttestationAccount }>
  | Readonly<{ type: "batch"; account: BatchAccount }>
  | Readonly<{ type: "agent"; account: AgentAccount }>;

export type DecodeProgramAccountOptions = Readonly<{
  /**
   * The program's two Schema addresses (`deriveIssuerAddresses`). An attestation's kind is read
   * from its size (a single attestation is 331 bytes, a batch 336, or 560 while its leaves are
   * pending); when they are given, an attestation whose schema is not that kind's is rejected.
   */
  schemas?: Readonly<{ attestation: Address; batch: Address }>;
}>;

/** The two attestation layouts share their first byte; a single attestation has its own size. */
function decodeAttestationOrBatch(
  data: ReadonlyUint8Array,
  options: DecodeProgramAccountOptions,
): DecodedProgramAccount {
  const decoded: DecodedProgramAccount =
    data.length === ATTESTATION_ACCOUNT_SIZE
      ? { type: "attestation", account: decodeAttestationAccount(data) }
      : { type: "batch", account: decodeBatchAccount(data) };
  const expectedSchema = options.schemas?.[decoded.type];
  if (expectedSchema !== undefined && decoded.account.schema !== expectedSchema) {
    throw malformedAccountData(
      "Attestation",
      `schema ${decoded.account.schema} is not this program's ${decoded.type} Schema`,
      "schema",
    );
  }
  return decoded;
}

/**
 * Decodes any account the program owns: the first byte tells the account type, a Schema's name
 * tells which Schema it is, and the schema (or data length) tells a single from a batch attestation.
 */
export function decodeProgramAccount(
  data: ReadonlyUint8Array,
  options: DecodeProgramAccountOptions = {},
): DecodedProgramAccount {
  const discriminator = data[0];
  if (discriminator === undefined) {
    throw new AbasError(ABAS_SDK__ACCOUNT_DATA_TOO_SHORT, {
      accountType: "Program",
      requiredSize: 1,
      actualSize: 0,
    });
  }
  switch (discriminator) {
    case AccountDiscriminator.Credential:
      return { type: "credential", account: decodeCredentialAccount(data) };
    case AccountDiscriminator.Schema: {
      const account = decodeSchemaAccount(data);
      const kind = getSchemaKindFromName(account.name);
      if (!kind) {
        throw malformedAccountData("Schema", `name ${account.name} is not a Schema of this program`, "name");
      }
      return { type: "schema", kind, account };
    }
    case AccountDiscriminator.Attestation:
      return decodeAttestationOrBatch(data, options);
    case AccountDiscriminator.Agent:
      return { type: "agent", account: decodeAgentAccount(data) };
    default:
      throw new AbasError(ABAS_SDK__UNKNOWN_ACCOUNT_TYPE, { discriminator });
  }
}
