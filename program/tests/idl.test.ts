/**
 * The IDL (program/idl/abas-idl.ts) and the client generated from it against the Rust source:
 * every number here is read from `program/src`, none is restated, so a change on either side that
 * the other does not follow fails this suite. The committed idl.json and generated client must be
 * what the IDL renders.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, it } from "node:test";

import {
  AbasAttestationAccount,
  ActionType,
  BATCH_COMPLETE_ACCOUNT_SIZE,
  BATCH_PENDING_ACCOUNT_SIZE,
  getAgentDecoder,
  getAttestationDecoder,
  getCredentialDecoder,
  identifyAbasAttestationAccount,
  getAgentEncoder,
  getAttestationEncoder,
  getAttestBatchInstructionDataEncoder,
  getAttestInstructionDataEncoder,
  getBatchEncoder,
  getCredentialEncoder,
  getInitializeInstructionDataEncoder,
  getLeafDataEncoder,
  getPublishBatchLeavesInstructionDataEncoder,
  getRegisterAgentInstructionDataEncoder,
  getUpdateAgentInstructionDataEncoder,
  MAX_BATCH_ITEMS,
  MERKLE_FRONTIER_SIZE,
} from "@abas/program-client";
import {
  camelCase,
  type AccountNode,
  type EnumTypeNode,
  type InstructionNode,
  type NumberValueNode,
  type PdaNode,
  type PdaValueNode,
  type StringValueNode,
  type StructTypeNode,
} from "@codama/nodes";
import { address } from "@solana/kit";
import { createFromJson } from "codama";

import { buildAbasIdl, SCHEMA_SEEDS } from "../idl/abas-idl.js";
import { stalePaths } from "../idl/render-idl.js";
import { attest, createTestLedger, readAccount, registerAgent } from "./harness.js";
import {
  rustByteString,
  rustEnumCodes,
  rustFile,
  rustInstructionAccounts,
  rustInteger,
  rustModuleIntegers,
  rustSchema,
  rustSeedSets,
} from "./rust-source.js";

const program = buildAbasIdl().program;

const instructionNamed = (name: string): InstructionNode => {
  const found = program.instructions.find((instruction) => instruction.name === name);
  assert.ok(found, `the IDL has no instruction ${name}`);
  return found;
};
const accountNamed = (name: string): AccountNode => {
  const found = program.accounts.find((account) => account.name === name);
  assert.ok(found, `the IDL has no account ${name}`);
  return found;
};
const pdaNamed = (name: string): PdaNode => {
  const found = program.pdas.find((pda) => pda.name === name);
  assert.ok(found, `the IDL has no PDA ${name}`);
  return found;
};

/** The value the IDL gives a struct's or an instruction's `discriminator` field. */
function discriminatorOf(fields: readonly { name: string; defaultValue?: unknown }[]): number {
  const field = fields.find((candidate) => candidate.name === "discriminator");
  return (field?.defaultValue as NumberValueNode | undefined)?.number ?? Number.NaN;
}

const KEY = address("11111111111111111111111111111112");
const bytes = (size: number, fill = 7) => new Uint8Array(size).fill(fill);

/** Instruction name in Rust (module and discriminator constant) -> in the IDL. */
const INSTRUCTIONS = {
  initialize: "initialize",
  register_agent: "registerAgent",
  update_agent: "updateAgent",
  attest: "attest",
  attest_batch: "attestBatch",
  publish_batch_leaves: "publishBatchLeaves",
} as const;

describe("the IDL's instructions are the program's", () => {
  it("has the program's instructions and their discriminators, and no other", () => {
    const rust = [...rustFile("instructions/mod.rs").matchAll(/const DISCRIMINATOR_(\w+): u8 = (\d+);/g)].map(
      (m) => [camelCase(m[1]!.toLowerCase()), Number(m[2])] as const,
    );
    const idl = program.instructions.map(
      (instruction) => [instruction.name, discriminatorOf(instruction.arguments)] as const,
    );
    assert.deepEqual(new Map(idl), new Map(rust));
    assert.equal(idl.length, rust.length);
  });

  // The local names Rust gives accounts whose IDL name says more (recording.rs serves two instructions).
  const RUST_ACCOUNT_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
    attest: { record: "attestation", schema: "attestationSchema", sysvar: "instructionsSysvar" },
    attestBatch: { record: "batch", schema: "batchSchema", sysvar: "instructionsSysvar" },
    publishBatchLeaves: { batch_account: "batch", schema: "batchSchema" },
  };
  const accountsFile = (rustName: string) =>
    rustName === "attest" || rustName === "attest_batch"
      ? "instructions/recording.rs"
      : `instructions/${rustName}.rs`;

  for (const [rustName, idlName] of Object.entries(INSTRUCTIONS)) {
    it(`${idlName}: the accounts Rust destructures, in order, with the signers and writable accounts it checks`, () => {
      const rust = rustInstructionAccounts(accountsFile(rustName));
      const rename = (name: string) =>
        RUST_ACCOUNT_NAMES[idlName]?.[name] ?? (name === "system" ? "systemProgram" : camelCase(name));
      const idl = instructionNamed(idlName).accounts;
      assert.deepEqual(
        idl.map((account) => account.name),
        rust.names.map(rename),
      );
      assert.deepEqual(
        idl.filter((account) => account.isSigner === true).map((account) => account.name),
        rust.names.filter((name) => rust.signers.has(name)).map(rename),
      );
      assert.deepEqual(
        idl.filter((account) => account.isWritable).map((account) => account.name),
        rust.names.filter((name) => rust.writable.has(name)).map(rename),
      );
    });
  }

  it("encodes each instruction's data in the length the program requires", () => {
    const fields = (file: string) => {
      const pattern = /let &\[([^\]]+)\] = input\.data/.exec(rustFile(file));
      assert.ok(pattern, `${file} destructures its data`);
      return pattern[1]!.split(",").length;
    };
    assert.equal(getInitializeInstructionDataEncoder().fixedSize, fields("instructions/initialize.rs"));
    assert.equal(
      getRegisterAgentInstructionDataEncoder().fixedSize,
      fields("instructions/register_agent.rs"),
    );
    assert.equal(getUpdateAgentInstructionDataEncoder().fixedSize, fields("instructions/update_agent.rs"));
    assert.equal(
      getAttestInstructionDataEncoder().fixedSize,
      rustInteger("DATA_LEN", "instructions/attest.rs"),
    );
    assert.equal(
      getAttestBatchInstructionDataEncoder().fixedSize,
      rustInteger("DATA_LEN", "instructions/attest_batch.rs"),
    );
    // [5, start_index, leaf_count] then LEAF_DATA_SIZE bytes per leaf.
    const header = /let leaves = &data\[(\d+)\.\.\]/.exec(rustFile("instructions/publish_batch_leaves.rs"));
    const leafSize = rustInteger("LEAF_DATA_SIZE", "merkle.rs");
    assert.equal(getLeafDataEncoder().fixedSize, leafSize);
    const leaf = { actionType: 1, privacyMode: 0, storedHash: bytes(32) };
    const encoded = getPublishBatchLeavesInstructionDataEncoder().encode({
      startIndex: 0,
      leaves: [leaf, leaf],
    });
    assert.equal(encoded.length, Number(header?.[1]) + 2 * leafSize);
  });
});

describe("the IDL's accounts are the program's", () => {
  const discriminators = rustModuleIntegers("state/mod.rs", "discriminator");

  it("gives each account the first byte the program writes", () => {
    const expected = {
      credential: discriminators.get("CREDENTIAL"),
      schema: discriminators.get("SCHEMA"),
      attestation: discriminators.get("ATTESTATION"),
      batch: discriminators.get("ATTESTATION"),
      agent: discriminators.get("AGENT"),
    };
    const idl = Object.fromEntries(
      program.accounts.map((account) => [
        account.name,
        discriminatorOf((account.data as StructTypeNode).fields),
      ]),
    );
    assert.deepEqual(idl, expected);
  });

  it("sizes the Agent account as the program does, every field at the program's offset", () => {
    const size = rustInteger("AGENT_ACCOUNT_SIZE", "state/agent.rs");
    assert.equal(accountNamed("agent").size, size);
    const data = getAgentEncoder().encode({
      layoutVersion: 1,
      bump: 201,
      status: 2,
      allowedActionTypes: 13,
      reserved: bytes(3, 0),
      operator: KEY,
      agent: address("Sysvar1nstructions1111111111111111111111111"),
      registeredAt: 0x1111n,
      registeredSlot: 0x2222n,
      updatedAt: 0x3333n,
      attestationCount: 0x4444n,
      batchCount: 0x5555n,
      batchItemCount: 0x6666n,
      lastAttestedAt: 0x7777n,
    });
    assert.equal(data.length, size);
    const at = (name: string) => rustInteger(name, "state/agent.rs");
    const u64At = (offset: number) => new DataView(data.buffer, data.byteOffset).getBigUint64(offset, true);
    assert.equal(data[at("BUMP")], 201);
    assert.equal(data[at("STATUS")], 2);
    assert.equal(data[at("STATUS")], rustInteger("STATUS_REVOKED", "state/agent.rs"));
    assert.equal(data[at("POLICY")], 13);
    assert.equal(data[at("OPERATOR") + 31], 1);
    assert.equal(data[at("AGENT")], 6);
    assert.deepEqual(
      [
        "REGISTERED_AT",
        "REGISTERED_SLOT",
        "UPDATED_AT",
        "ATTESTATION_COUNT",
        "BATCH_COUNT",
        "BATCH_ITEM_COUNT",
        "LAST_ATTESTED_AT",
      ].map((name) => u64At(at(name))),
      [0x1111n, 0x2222n, 0x3333n, 0x4444n, 0x5555n, 0x6666n, 0x7777n],
    );
  });

  it("sizes the Credential as the program does", () => {
    const size = rustInteger("CREDENTIAL_SIZE", "state/credential.rs");
    assert.equal(accountNamed("credential").size, size);
    const name = rustByteString("CREDENTIAL_NAME", "state/credential.rs");
    assert.equal(getCredentialEncoder().encode({ authority: KEY, name, authorizedSigners: [] }).length, size);
  });

  const envelope = {
    nonce: bytes(32),
    credential: KEY,
    schema: KEY,
    signer: KEY,
    expiry: 0n,
    tokenAccount: KEY,
  };

  it("sizes a single attestation and its BehaviorAttestation data as the program does", () => {
    const size = rustInteger("ATTESTATION_SIZE", "state/attestation.rs");
    assert.equal(accountNamed("attestation").size, size);
    const data = getAttestationEncoder().encode({
      ...envelope,
      data: {
        actionType: 3,
        privacyMode: true,
        actionHash: bytes(32),
        agentSignature: bytes(64),
        operator: KEY,
        timestamp: 1n,
        slot: 2n,
      },
    });
    assert.equal(data.length, size);
    const dataLengthAt = rustInteger("SAS_HEADER_SIZE", "state/attestation.rs") - 4;
    assert.equal(
      new DataView(data.buffer, data.byteOffset).getUint32(dataLengthAt, true),
      rustInteger("ATTESTATION_DATA_SIZE", "state/attestation.rs"),
    );
  });

  it("sizes a pending and a complete batch as the program does, its fields at the program's offsets", () => {
    const batch = (frontier: Uint8Array) =>
      getBatchEncoder().encode({
        ...envelope,
        data: {
          merkleRoot: bytes(32),
          itemCount: 99,
          actionTypes: 11,
          agentSignature: bytes(64),
          operator: address("Sysvar1nstructions1111111111111111111111111"),
          timestamp: 1n,
          slot: 2n,
          leavesPublished: 42,
          frontier,
        },
      });
    const frontierSize = rustInteger("FRONTIER_SIZE", "merkle.rs");
    const pending = batch(bytes(frontierSize));
    assert.equal(pending.length, rustInteger("PENDING_SIZE", "state/batch.rs"));
    assert.equal(batch(new Uint8Array()).length, rustInteger("COMPLETE_SIZE", "state/batch.rs"));
    // The client's batch sizes, which its decoder accepts, follow the generated encoder and the
    // frontier; the frontier's size and the item limit are the program's, which the IDL cannot carry.
    assert.equal(MERKLE_FRONTIER_SIZE, frontierSize);
    assert.equal(MAX_BATCH_ITEMS, rustInteger("MAX_BATCH_ITEMS", "state/batch.rs"));
    assert.equal(BATCH_PENDING_ACCOUNT_SIZE, pending.length);
    assert.equal(BATCH_COMPLETE_ACCOUNT_SIZE, rustInteger("COMPLETE_SIZE", "state/batch.rs"));
    const at = (name: string) => rustInteger(name, "state/batch.rs");
    assert.equal(pending[at("ITEM_COUNT")], 99);
    assert.equal(pending[at("ACTION_TYPES")], 11);
    assert.equal(pending[at("OPERATOR")], 6);
    assert.equal(pending[at("LEAVES_PUBLISHED")], 42);
    assert.equal(
      new DataView(pending.buffer, pending.byteOffset).getUint32(at("FRONTIER_LEN"), true),
      frontierSize,
    );
  });
});

describe("the IDL's addresses, enums and errors are the program's", () => {
  const seedsOf = (pda: PdaNode) => ({
    prefix:
      pda.seeds[0]?.kind === "constantPdaSeedNode"
        ? (pda.seeds[0].value as StringValueNode).string
        : undefined,
    variables: pda.seeds.filter((seed) => seed.kind === "variablePdaSeedNode").map((seed) => seed.name),
  });
  const rustSeeds = (file: string) =>
    rustSeedSets(file).map(({ prefix, variables }) => ({
      prefix,
      variables: variables.map((name) => camelCase(name)),
    }));

  it("derives every PDA from the seeds the program proves canonical", () => {
    assert.deepEqual(rustSeeds("instructions/initialize.rs"), [
      seedsOf(pdaNamed("credential")),
      seedsOf(pdaNamed("schema")),
    ]);
    assert.deepEqual(rustSeeds("instructions/register_agent.rs"), [seedsOf(pdaNamed("agent"))]);
    assert.deepEqual(rustSeeds("instructions/attest.rs"), [seedsOf(pdaNamed("attestation"))]);
    assert.deepEqual(rustSeeds("instructions/attest_batch.rs"), [seedsOf(pdaNamed("batch"))]);
    // ProgramData: `[program id]` under the Upgradeable Loader.
    assert.match(
      rustFile("instructions/initialize.rs"),
      /expect_canonical_pda\(program_data, &\[program_id, &\[bump\]\], &UPGRADEABLE_LOADER_ID\)/,
    );
    assert.equal(pdaNamed("programData").programId, "BPFLoaderUpgradeab1e11111111111111111111111");
    assert.deepEqual(seedsOf(pdaNamed("programData")), { prefix: undefined, variables: ["program"] });
  });

  it("names each Schema by the name and version the program publishes", () => {
    assert.deepEqual(rustSchema("ATTESTATION_SCHEMA"), SCHEMA_SEEDS.attestation);
    assert.deepEqual(rustSchema("BATCH_SCHEMA"), SCHEMA_SEEDS.batch);
    const schemaSeedsOf = (instruction: string, account: string) => {
      const value = instructionNamed(instruction).accounts.find((a) => a.name === account)
        ?.defaultValue as PdaValueNode;
      const seed = (name: string) => value.seeds.find((s) => s.name === name)?.value;
      return {
        name: (seed("name") as StringValueNode).string,
        version: (seed("version") as NumberValueNode).number,
      };
    };
    assert.deepEqual(schemaSeedsOf("attest", "attestationSchema"), SCHEMA_SEEDS.attestation);
    assert.deepEqual(schemaSeedsOf("attestBatch", "batchSchema"), SCHEMA_SEEDS.batch);
    assert.deepEqual(schemaSeedsOf("initialize", "attestationSchema"), SCHEMA_SEEDS.attestation);
    assert.deepEqual(schemaSeedsOf("initialize", "batchSchema"), SCHEMA_SEEDS.batch);
  });

  const variantsOf = (name: string) => {
    const type = program.definedTypes.find((definedType) => definedType.name === name)?.type as EnumTypeNode;
    return type.variants.map((variant) => variant.name);
  };

  it("has one ActionType variant per action type the program accepts", () => {
    assert.equal(variantsOf("actionType").length, rustInteger("ACTION_TYPE_COUNT", "state/mod.rs"));
  });

  it("numbers AgentStatus variants as the program's status constants", () => {
    const variants = variantsOf("agentStatus");
    const statuses = variants.map((name) => rustInteger(`STATUS_${name.toUpperCase()}`, "state/agent.rs"));
    assert.deepEqual(
      statuses,
      variants.map((_, index) => index),
    );
  });

  it("has every error of the program, with its code and name, and no other", () => {
    const rust = [...rustEnumCodes("error.rs", "ProgramError")].map(([name, code]) => [
      camelCase(name),
      code,
    ]);
    assert.deepEqual(
      program.errors.map((error) => [error.name, error.code]),
      rust,
    );
  });
});

describe("the generated decoders read what the program writes", () => {
  it("identifies and decodes the Credential, an Agent and an attestation on the real SVM", async () => {
    // Given an initialized program with a registered agent and one attestation
    const ledger = await createTestLedger();
    const registered = await registerAgent(ledger);
    const attested = await attest(ledger, {
      ...registered,
      actionType: ActionType.Decision,
      privacyMode: false,
    });

    // When their accounts are read with the generated client only
    const agentData = readAccount(ledger, registered.agentAccount).data;
    const attestationData = readAccount(ledger, attested.attestation).data;
    const credentialData = readAccount(ledger, ledger.credential).data;

    // Then each is identified by its discriminators and decodes to what was recorded
    assert.equal(identifyAbasAttestationAccount(agentData), AbasAttestationAccount.Agent);
    assert.equal(identifyAbasAttestationAccount(attestationData), AbasAttestationAccount.Attestation);
    assert.equal(identifyAbasAttestationAccount(credentialData), AbasAttestationAccount.Credential);
    const agent = getAgentDecoder().decode(agentData);
    assert.equal(agent.agent, registered.agent.address);
    assert.equal(agent.operator, registered.operator.address);
    assert.equal(agent.attestationCount, 1n);
    const attestation = getAttestationDecoder().decode(attestationData);
    assert.equal(attestation.signer, registered.agent.address);
    assert.equal(attestation.data.actionType, ActionType.Decision);
    assert.deepEqual(Uint8Array.from(attestation.data.actionHash), attested.storedHash);
    assert.equal(
      getCredentialDecoder().decode(credentialData).name,
      rustByteString("CREDENTIAL_NAME", "state/credential.rs"),
    );
  });
});

describe("the committed IDL artefacts", () => {
  it("program/idl.json loads back into Codama as the IDL", () => {
    const json = readFileSync(fileURLToPath(new URL("../idl.json", import.meta.url)), "utf8");
    assert.deepEqual(createFromJson(json).getRoot(), buildAbasIdl());
  });

  it("are what the IDL renders: program/idl.json and packages/program-client/src/generated", async () => {
    assert.deepEqual(await stalePaths(), []);
  });
});
