/**
 * The program's interface as a Codama IDL: every instruction (accounts, data, discriminator), every
 * account (layout, size, discriminator), every PDA seed set, the enums and every error. The Rust
 * source is the truth; `program/tests/idl.test.ts` checks this description against it, and
 * `npm run idl` writes `program/idl.json` and the generated client from it.
 */
import { AbasErrorMessages, PROGRAM_ERROR_NAMES, type AbasProgramErrorCode } from "@abas/errors";
import {
  accountBumpValueNode,
  camelCase,
  accountNode,
  accountValueNode,
  argumentValueNode,
  arrayTypeNode,
  booleanTypeNode,
  bytesTypeNode,
  constantPdaSeedNodeFromString,
  definedTypeLinkNode,
  definedTypeNode,
  enumEmptyVariantTypeNode,
  enumTypeNode,
  errorNode,
  fieldDiscriminatorNode,
  fixedSizeTypeNode,
  instructionAccountNode,
  instructionArgumentNode,
  instructionNode,
  numberTypeNode,
  numberValueNode,
  pdaLinkNode,
  pdaNode,
  pdaSeedValueNode,
  pdaValueNode,
  prefixedCountNode,
  programNode,
  publicKeyTypeNode,
  publicKeyValueNode,
  remainderCountNode,
  rootNode,
  sizeDiscriminatorNode,
  sizePrefixTypeNode,
  stringTypeNode,
  stringValueNode,
  structFieldTypeNode,
  structTypeNode,
  variablePdaSeedNode,
  type InstructionAccountNode,
  type InstructionArgumentNode,
  type RootNode,
  type StructFieldTypeNode,
  type TypeNode,
} from "@codama/nodes";

/** The address of the local ledger's deployment; every builder takes another `programAddress`. */
export const LOCAL_PROGRAM_ADDRESS = "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN";
const INSTRUCTIONS_SYSVAR = "Sysvar1nstructions1111111111111111111111111";
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const UPGRADEABLE_LOADER = "BPFLoaderUpgradeab1e11111111111111111111111";

/** The two Schemas the program publishes: their names and versions are seeds of their addresses. */
export const SCHEMA_SEEDS = {
  attestation: { name: "BehaviorAttestation", version: 1 },
  batch: { name: "BehaviorBatch", version: 2 },
} as const;

const u8 = () => numberTypeNode("u8");
const u32 = () => numberTypeNode("u32");
const u64 = () => numberTypeNode("u64");
const i64 = () => numberTypeNode("i64");
const bytes = (size: number) => fixedSizeTypeNode(bytesTypeNode(), size);
/** A SAS `Vec<u8>`: u32 byte length, then the bytes. */
const vecOf = (type: TypeNode) => sizePrefixTypeNode(type, u32());
const borshString = () => sizePrefixTypeNode(stringTypeNode("utf8"), u32());
const field = (name: string, type: TypeNode, docs?: string): StructFieldTypeNode =>
  structFieldTypeNode({ name, type, docs: docs === undefined ? [] : [docs] });
/** The first byte of an account or of instruction data, filled in by the encoders. */
const discriminatorField = (value: number): StructFieldTypeNode =>
  structFieldTypeNode({
    name: "discriminator",
    type: u8(),
    defaultValue: numberValueNode(value),
    defaultValueStrategy: "omitted",
  });

// ---------------------------------------------------------------- types

const actionType = definedTypeNode({
  name: "actionType",
  docs: ["What an attested action is; bit `t` of a policy or batch mask stands for type `t`."],
  type: enumTypeNode(
    ["transaction", "toolCall", "decision", "modelInvocation"].map((name) => enumEmptyVariantTypeNode(name)),
    { size: u8() },
  ),
});

const agentStatus = definedTypeNode({
  name: "agentStatus",
  docs: ["An agent's status. Revoked is final."],
  type: enumTypeNode(
    ["active", "suspended", "revoked"].map((name) => enumEmptyVariantTypeNode(name)),
    { size: u8() },
  ),
});

/** One batch item as `publish_batch_leaves` carries it; raw bytes, which the program range-checks. */
const leafData = definedTypeNode({
  name: "leafData",
  docs: ["One batch item: action type (0..=3), privacy flag (0 or 1), stored hash."],
  type: structTypeNode([
    field("actionType", u8(), "An `ActionType`; others are refused with `ActionTypeNotAllowed`."),
    field("privacyMode", u8(), "0 or 1; others are refused with `InvalidPrivacyFlag`."),
    field("storedHash", bytes(32), "The action hash, or in privacy mode the commitment."),
  ]),
});

/** The BehaviorAttestation Schema's fields, as SAS stores an Attestation's data. */
const behaviorAttestationData = definedTypeNode({
  name: "behaviorAttestationData",
  type: structTypeNode([
    field("actionType", definedTypeLinkNode("actionType")),
    field("privacyMode", booleanTypeNode()),
    field("actionHash", vecOf(bytes(32)), "The action hash, or in privacy mode the commitment."),
    field("agentSignature", vecOf(bytes(64))),
    field("operator", vecOf(publicKeyTypeNode())),
    field("timestamp", i64()),
    field("slot", u64()),
  ]),
});

/** The BehaviorBatch Schema's fields; the frontier is 224 bytes while leaves are pending, then empty. */
const behaviorBatchData = definedTypeNode({
  name: "behaviorBatchData",
  type: structTypeNode([
    field("merkleRoot", vecOf(bytes(32))),
    field("itemCount", u8()),
    field("actionTypes", u8(), "Bit mask of the action types the items may use."),
    field("agentSignature", vecOf(bytes(64))),
    field("operator", vecOf(publicKeyTypeNode())),
    field("timestamp", i64()),
    field("slot", u64()),
    field("leavesPublished", u8()),
    field("frontier", vecOf(bytesTypeNode()), "Subtree roots (7 × 32 bytes) while leaves are pending."),
  ]),
});

// ---------------------------------------------------------------- PDAs

const pdas = [
  pdaNode({ name: "credential", seeds: [constantPdaSeedNodeFromString("utf8", "credential")] }),
  pdaNode({
    name: "schema",
    seeds: [
      constantPdaSeedNodeFromString("utf8", "schema"),
      variablePdaSeedNode("credential", publicKeyTypeNode()),
      variablePdaSeedNode("name", stringTypeNode("utf8")),
      variablePdaSeedNode("version", u8()),
    ],
  }),
  pdaNode({
    name: "agent",
    seeds: [
      constantPdaSeedNodeFromString("utf8", "agent"),
      variablePdaSeedNode("agent", publicKeyTypeNode()),
    ],
  }),
  pdaNode({
    name: "attestation",
    seeds: [
      constantPdaSeedNodeFromString("utf8", "attestation"),
      variablePdaSeedNode("agent", publicKeyTypeNode()),
      variablePdaSeedNode("storedHash", bytes(32)),
    ],
  }),
  pdaNode({
    name: "batch",
    seeds: [
      constantPdaSeedNodeFromString("utf8", "batch"),
      variablePdaSeedNode("agent", publicKeyTypeNode()),
      variablePdaSeedNode("merkleRoot", bytes(32)),
    ],
  }),
  pdaNode({
    name: "programData",
    docs: ["The Upgradeable Loader's ProgramData account of the program, which `initialize` reads."],
    programId: UPGRADEABLE_LOADER,
    seeds: [variablePdaSeedNode("program", publicKeyTypeNode())],
  }),
];

// ---------------------------------------------------------------- accounts

const sasEnvelope = (data: TypeNode): StructFieldTypeNode[] => [
  discriminatorField(2),
  field("nonce", bytes(32), "The stored hash (single attestation) or the Merkle root (batch)."),
  field("credential", publicKeyTypeNode()),
  field("schema", publicKeyTypeNode()),
  field("data", vecOf(data)),
  field("signer", publicKeyTypeNode(), "The agent's public key."),
  field("expiry", i64(), "0: never expires."),
  field("tokenAccount", publicKeyTypeNode(), "All zero: not tokenized."),
];

const accounts = [
  accountNode({
    name: "credential",
    docs: ["The issuer's SAS Credential: the program as authority, name `ABAS`, no signers."],
    pda: pdaLinkNode("credential"),
    size: 45,
    discriminators: [fieldDiscriminatorNode("discriminator")],
    data: structTypeNode([
      discriminatorField(0),
      field("authority", publicKeyTypeNode()),
      field("name", borshString()),
      field("authorizedSigners", arrayTypeNode(publicKeyTypeNode(), prefixedCountNode(u32()))),
    ]),
  }),
  accountNode({
    name: "schema",
    docs: ["A SAS Schema: the names and SAS type codes of the fields of the attestations that use it."],
    pda: pdaLinkNode("schema"),
    discriminators: [fieldDiscriminatorNode("discriminator")],
    data: structTypeNode([
      discriminatorField(1),
      field("credential", publicKeyTypeNode()),
      field("name", borshString()),
      field("description", borshString()),
      field("layout", vecOf(bytesTypeNode()), "One SAS type code per field."),
      field("fieldNames", vecOf(arrayTypeNode(borshString(), remainderCountNode()))),
      field("isPaused", booleanTypeNode()),
      field("version", u8()),
    ]),
  }),
  accountNode({
    name: "attestation",
    docs: ["A single BehaviorAttestation in SAS Attestation layout."],
    pda: pdaLinkNode("attestation"),
    size: 331,
    discriminators: [fieldDiscriminatorNode("discriminator"), sizeDiscriminatorNode(331)],
    data: structTypeNode(sasEnvelope(definedTypeLinkNode("behaviorAttestationData"))),
  }),
  accountNode({
    name: "batch",
    docs: [
      "A batch attestation (BehaviorBatch) in SAS Attestation layout: 560 bytes while its leaves are",
      "pending, 336 once complete. Shares its first byte with `attestation`, which is 331 bytes.",
    ],
    pda: pdaLinkNode("batch"),
    discriminators: [fieldDiscriminatorNode("discriminator")],
    data: structTypeNode(sasEnvelope(definedTypeLinkNode("behaviorBatchData"))),
  }),
  accountNode({
    name: "agent",
    docs: ["An agent's registration, policy and counters."],
    pda: pdaLinkNode("agent"),
    size: 128,
    discriminators: [fieldDiscriminatorNode("discriminator"), sizeDiscriminatorNode(128)],
    data: structTypeNode([
      discriminatorField(16),
      field("layoutVersion", u8()),
      field("bump", u8()),
      field("status", definedTypeLinkNode("agentStatus")),
      field("allowedActionTypes", u8(), "Bit mask of the action types the agent may attest, 1..=15."),
      field("reserved", bytes(3)),
      field("operator", publicKeyTypeNode()),
      field("agent", publicKeyTypeNode()),
      field("registeredAt", i64()),
      field("registeredSlot", u64()),
      field("updatedAt", i64()),
      field("attestationCount", u64()),
      field("batchCount", u64()),
      field("batchItemCount", u64()),
      field("lastAttestedAt", i64(), "0 when the agent never attested."),
    ]),
  }),
];

// ---------------------------------------------------------------- instructions

type AccountSpec = Readonly<{
  name: string;
  signer?: boolean;
  writable?: boolean;
  docs?: string;
  defaultValue?: InstructionAccountNode["defaultValue"];
}>;

const account = ({ name, signer = false, writable = false, docs, defaultValue }: AccountSpec) =>
  instructionAccountNode({
    name,
    isSigner: signer,
    isWritable: writable,
    docs: docs === undefined ? [] : [docs],
    ...(defaultValue === undefined ? {} : { defaultValue }),
  });

const argument = (
  name: string,
  type: TypeNode,
  docs?: string,
  defaultValue?: InstructionArgumentNode["defaultValue"],
) =>
  instructionArgumentNode({
    name,
    type,
    docs: docs === undefined ? [] : [docs],
    ...(defaultValue === undefined ? {} : { defaultValue }),
  });

const discriminatorArgument = (value: number) =>
  instructionArgumentNode({
    name: "discriminator",
    type: u8(),
    defaultValue: numberValueNode(value),
    defaultValueStrategy: "omitted",
  });

const bumpOf = (accountName: string, docs: string) =>
  argument(`${accountName}Bump`, u8(), docs, accountBumpValueNode(accountName));

const credentialPda = pdaValueNode("credential", []);
const schemaPda = (kind: keyof typeof SCHEMA_SEEDS) =>
  pdaValueNode("schema", [
    pdaSeedValueNode("credential", accountValueNode("credential")),
    pdaSeedValueNode("name", stringValueNode(SCHEMA_SEEDS[kind].name)),
    pdaSeedValueNode("version", numberValueNode(SCHEMA_SEEDS[kind].version)),
  ]);
const agentPda = (agent: "account" | "argument") =>
  pdaValueNode("agent", [
    pdaSeedValueNode("agent", agent === "account" ? accountValueNode("agent") : argumentValueNode("agent")),
  ]);
const instructionsSysvar = publicKeyValueNode(INSTRUCTIONS_SYSVAR, "instructionsSysvar");
const systemProgram = publicKeyValueNode(SYSTEM_PROGRAM, "systemProgram");

/** What `attest` and `attest_batch` share: the operator, the agent's account, the issuer, the sysvar. */
const recordingAccounts = (record: "attestation" | "batch", recordDocs: string) => [
  account({
    name: "operator",
    signer: true,
    writable: true,
    docs: `The agent's operator; pays for the ${record}.`,
  }),
  account({ name: "agentAccount", writable: true, defaultValue: agentPda("argument") }),
  account({
    name: record,
    writable: true,
    docs: recordDocs,
    defaultValue: pdaValueNode(record, [
      pdaSeedValueNode("agent", argumentValueNode("agent")),
      pdaSeedValueNode(
        record === "attestation" ? "storedHash" : "merkleRoot",
        argumentValueNode(record === "attestation" ? "storedHash" : "merkleRoot"),
      ),
    ]),
  }),
  account({ name: "credential", defaultValue: credentialPda }),
  account({ name: `${record}Schema`, defaultValue: schemaPda(record) }),
  account({ name: "instructionsSysvar", defaultValue: instructionsSysvar }),
  account({ name: "systemProgram", defaultValue: systemProgram }),
];

const agentKeyArgument = instructionArgumentNode({
  name: "agent",
  type: publicKeyTypeNode(),
  docs: ["The agent's key: a seed of its account and of the record, not part of the data."],
});

/** Every instruction selects itself by its first byte. */
const instruction = (input: Parameters<typeof instructionNode>[0]) =>
  instructionNode({ discriminators: [fieldDiscriminatorNode("discriminator")], ...input });

const instructions = [
  instruction({
    name: "initialize",
    docs: ["Creates the Credential and the two Schemas, once, signed by the program's upgrade authority."],
    accounts: [
      account({ name: "authority", signer: true, writable: true, docs: "The upgrade authority; pays." }),
      account({ name: "credential", writable: true, defaultValue: credentialPda }),
      account({ name: "attestationSchema", writable: true, defaultValue: schemaPda("attestation") }),
      account({ name: "batchSchema", writable: true, defaultValue: schemaPda("batch") }),
      account({ name: "programData", docs: "The program's ProgramData (`findProgramDataPda`)." }),
      account({ name: "systemProgram", defaultValue: systemProgram }),
    ],
    arguments: [
      discriminatorArgument(0),
      bumpOf("credential", "Hint the program proves canonical."),
      bumpOf("attestationSchema", "Hint the program proves canonical."),
      bumpOf("batchSchema", "Hint the program proves canonical."),
      bumpOf("programData", "Canonical bump of the ProgramData address under the loader."),
    ],
  }),
  instruction({
    name: "registerAgent",
    docs: ["Creates an agent's account; the operator and the agent both sign."],
    accounts: [
      account({
        name: "operator",
        signer: true,
        writable: true,
        docs: "Pays and becomes the agent's operator.",
      }),
      account({ name: "agent", signer: true, docs: "The agent proves it holds its key." }),
      account({ name: "agentAccount", writable: true, defaultValue: agentPda("account") }),
      account({ name: "systemProgram", defaultValue: systemProgram }),
    ],
    arguments: [
      discriminatorArgument(1),
      bumpOf("agentAccount", "Hint the program proves canonical."),
      argument("allowedActionTypes", u8(), "Bit mask of the action types the agent may attest, 1..=15."),
    ],
  }),
  instruction({
    name: "updateAgent",
    docs: ["The operator sets an agent's status and policy. Revoked is final."],
    accounts: [
      account({ name: "operator", signer: true, docs: "The agent's operator." }),
      account({ name: "agentAccount", writable: true, defaultValue: agentPda("argument") }),
    ],
    arguments: [
      discriminatorArgument(2),
      argument("status", u8(), "An `AgentStatus`; others are refused with `InvalidStatus`."),
      argument("allowedActionTypes", u8(), "Bit mask of the action types the agent may attest, 1..=15."),
    ],
    extraArguments: [agentKeyArgument],
  }),
  instruction({
    name: "attest",
    docs: [
      "Records one action. The instruction right before it must be the Ed25519 precompile",
      "instruction that verified the agent's signature of the attest message.",
    ],
    accounts: recordingAccounts("attestation", "The attestation to create."),
    arguments: [
      discriminatorArgument(3),
      argument("actionType", u8(), "An `ActionType`; others are refused with `InvalidActionType`."),
      argument("privacyMode", u8(), "0 or 1; others are refused with `InvalidPrivacyFlag`."),
      bumpOf("attestation", "Hint the program proves canonical."),
      argument("storedHash", bytes(32), "The action hash, or in privacy mode the commitment."),
    ],
    extraArguments: [agentKeyArgument],
  }),
  instruction({
    name: "attestBatch",
    docs: [
      "Records a Merkle commitment to 1..=100 actions. The instruction right before it must be the",
      "Ed25519 precompile instruction that verified the agent's signature of the batch message.",
    ],
    accounts: recordingAccounts("batch", "The batch attestation to create."),
    arguments: [
      discriminatorArgument(4),
      argument("itemCount", u8(), "1..=100."),
      argument("actionTypes", u8(), "Bit mask of the action types the items may use, 1..=15."),
      bumpOf("batch", "Hint the program proves canonical."),
      argument("merkleRoot", bytes(32)),
    ],
    extraArguments: [agentKeyArgument],
  }),
  instruction({
    name: "publishBatchLeaves",
    docs: [
      "Publishes the next chunk of a batch's leaves, in order; with the last leaf the program checks",
      "the signed root, drops the frontier and refunds its rent to the operator.",
    ],
    accounts: [
      account({
        name: "operator",
        signer: true,
        writable: true,
        docs: "The operator that committed the batch.",
      }),
      account({
        name: "batch",
        writable: true,
        defaultValue: pdaValueNode("batch", [
          pdaSeedValueNode("agent", argumentValueNode("agent")),
          pdaSeedValueNode("merkleRoot", argumentValueNode("merkleRoot")),
        ]),
      }),
      account({ name: "batchSchema" }),
    ],
    arguments: [
      discriminatorArgument(5),
      argument("startIndex", u8(), "Must equal the batch's `leaves_published`."),
      argument("leaves", arrayTypeNode(definedTypeLinkNode("leafData"), prefixedCountNode(u8()))),
    ],
    extraArguments: [
      agentKeyArgument,
      instructionArgumentNode({
        name: "merkleRoot",
        type: bytes(32),
        docs: ["With the agent, names the batch."],
      }),
    ],
  }),
];

// ---------------------------------------------------------------- errors

/** The program's errors: the codes, names and messages of `@abas/errors`' ABAS_PROGRAM range. */
const errors = Object.entries(PROGRAM_ERROR_NAMES).map(([code, name]) =>
  errorNode({
    code: Number(code),
    name: camelCase(name),
    message: AbasErrorMessages[Number(code) as AbasProgramErrorCode],
  }),
);

export function buildAbasIdl(): RootNode {
  return rootNode(
    programNode({
      name: "abasAttestation",
      publicKey: LOCAL_PROGRAM_ADDRESS,
      version: "0.1.0",
      docs: ["Agent Behavior Attestation Service: verifiable receipts of what AI agents do."],
      pdas,
      accounts,
      instructions,
      definedTypes: [actionType, agentStatus, leafData, behaviorAttestationData, behaviorBatchData],
      errors,
    }),
  );
}
