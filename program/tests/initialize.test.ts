import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__ALREADY_INITIALIZED,
  ABAS_PROGRAM__INVALID_PDA,
  ABAS_PROGRAM__INVALID_PROGRAM_DATA,
  ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY,
} from "@abas/errors";
import {
  buildInitializeInstruction,
  deriveProgramDataAddress,
  decodeCredentialAccount,
  decodeSchemaAccount,
  deriveCredentialAddress,
  deriveSchemaAddress,
} from "@abas/program-client";
import {
  AccountRole,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  type Address,
  type ReadonlyUint8Array,
} from "@solana/kit";

import {
  balanceOf,
  createFundedSigner,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  getAccount,
  readAccount,
  readProgramBytes,
  send,
  withAccount,
  withData,
} from "./harness.js";
import { buildMakeImmutableInstruction, deployWithUpgradeableLoader } from "./upgradeable-loader.js";

const BPF_LOADER_2_ADDRESS = address("BPFLoader2111111111111111111111111111111111");

// The expected bytes are written out from docs/program.md, independently of the client's encoders.
const utf8 = (text: string) => new TextEncoder().encode(text);
const u32 = (n: number) => Uint8Array.of(n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
const bytes = (...parts: (ReadonlyUint8Array | readonly number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => [...p]));
const addressBytes = (address: Address) => getAddressEncoder().encode(address);
const sized = (content: Uint8Array) => bytes(u32(content.length), content);

function expectedSchemaBytes(input: {
  credential: Address;
  name: string;
  version: number;
  description: string;
  layout: number[];
  fieldNames: string[];
}): Uint8Array {
  const names = bytes(...input.fieldNames.map((name) => sized(utf8(name))));
  return bytes(
    [1],
    addressBytes(input.credential),
    sized(utf8(input.name)),
    sized(utf8(input.description)),
    sized(Uint8Array.from(input.layout)),
    sized(names),
    [0], // is_paused
    [input.version],
  );
}

test("initialize by the upgrade authority creates the Credential and both Schemas with their exact bytes", async () => {
  // Given a fresh deployment where nobody has run initialize, and its upgrade authority
  const ledger = await createTestLedger({ initialize: false });
  const payer = ledger.payer;
  const credential = await deriveCredentialAddress(ledger.programId);
  const attestationSchema = await deriveSchemaAddress(ledger.programId, credential.address, "attestation");
  const batchSchema = await deriveSchemaAddress(ledger.programId, credential.address, "batch");
  const payerBefore = balanceOf(ledger, payer.address);

  // When the payer runs initialize
  const outcome = await send(ledger, [
    await buildInitializeInstruction({ programId: ledger.programId, authority: payer }),
  ]);

  // Then the Credential is the program's, 45 bytes: authority = program, name "ABAS", no signers
  expectSuccess(outcome);
  const credentialAccount = readAccount(ledger, credential.address);
  assert.equal(credentialAccount.owner, ledger.programId);
  assert.deepEqual(
    credentialAccount.data,
    bytes([0], addressBytes(ledger.programId), sized(utf8("ABAS")), u32(0)),
  );
  assert.equal(credentialAccount.data.length, 45);
  assert.deepEqual(decodeCredentialAccount(credentialAccount.data), {
    authority: ledger.programId,
    name: "ABAS",
    authorizedSigners: [],
  });

  // And the BehaviorAttestation Schema has the documented fields and SAS type codes
  const attestationSchemaAccount = readAccount(ledger, attestationSchema.address);
  assert.equal(attestationSchemaAccount.owner, ledger.programId);
  assert.deepEqual(
    attestationSchemaAccount.data,
    expectedSchemaBytes({
      credential: credential.address,
      name: "BehaviorAttestation",
      version: 1,
      description: "One action of an autonomous agent, signed by the agent's key",
      layout: [0, 10, 13, 13, 13, 8, 3],
      fieldNames: [
        "action_type",
        "privacy_mode",
        "action_hash",
        "agent_signature",
        "operator",
        "timestamp",
        "slot",
      ],
    }),
  );

  // And the BehaviorBatch Schema too
  const batchSchemaAccount = readAccount(ledger, batchSchema.address);
  assert.equal(batchSchemaAccount.owner, ledger.programId);
  const batchFieldNames = [
    "merkle_root",
    "item_count",
    "action_types",
    "agent_signature",
    "operator",
    "timestamp",
    "slot",
    "leaves_published",
    "frontier",
  ];
  assert.deepEqual(
    batchSchemaAccount.data,
    expectedSchemaBytes({
      credential: credential.address,
      name: "BehaviorBatch",
      version: 2,
      description: "A Merkle commitment to up to 100 actions of an autonomous agent",
      layout: [13, 0, 0, 13, 13, 8, 3, 0, 13],
      fieldNames: batchFieldNames,
    }),
  );
  const decodedBatchSchema = decodeSchemaAccount(batchSchemaAccount.data);
  assert.equal(decodedBatchSchema.name, "BehaviorBatch");
  assert.deepEqual(decodedBatchSchema.fieldNames, batchFieldNames);

  // And every account is rent-exempt, paid by the payer
  let rent = 0n;
  for (const account of [credentialAccount, attestationSchemaAccount, batchSchemaAccount]) {
    const minimum = ledger.svm.minimumBalanceForRentExemption(BigInt(account.data.length));
    assert.equal(account.lamports, minimum);
    rent += minimum;
  }
  assert.equal(payerBefore - balanceOf(ledger, payer.address), rent + 5_000n);
});

test("initialize a second time fails with AlreadyInitialized", async () => {
  // Given a deployment that is initialized
  const ledger = await createTestLedger();
  const credentialBefore = readAccount(ledger, ledger.credential);

  // When the upgrade authority runs initialize again
  const outcome = await send(ledger, [
    await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
  ]);

  // Then it fails with AlreadyInitialized and the Credential is unchanged
  expectProgramError(outcome, ABAS_PROGRAM__ALREADY_INITIALIZED);
  assert.deepEqual(readAccount(ledger, ledger.credential), credentialBefore);
});

test("initialize by anyone but the upgrade authority fails with NotUpgradeAuthority and creates nothing", async () => {
  // Given a fresh deployment, and a funded key that is not its upgrade authority
  const ledger = await createTestLedger({ initialize: false });
  const stranger = await createFundedSigner(ledger);

  // When the stranger runs initialize, naming the deployment's real ProgramData
  const outcome = await send(
    ledger,
    [await buildInitializeInstruction({ programId: ledger.programId, authority: stranger })],
    [],
    { feePayer: stranger },
  );

  // Then it fails with NotUpgradeAuthority and no Credential or Schema exists
  expectProgramError(outcome, ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY);
  for (const address of [ledger.credential, ledger.attestationSchema, ledger.batchSchema]) {
    assert.equal(getAccount(ledger, address), undefined);
  }
});

test("initialize with another deployment's ProgramData, where the caller is authority, fails with InvalidPda", async () => {
  // Given a fresh deployment, and an attacker who deployed a program of its own (its authority)
  const ledger = await createTestLedger({ initialize: false });
  const attacker = await createFundedSigner(ledger);
  const own = await deployWithUpgradeableLoader(ledger.svm, attacker, readProgramBytes());
  const instruction = await buildInitializeInstruction({ programId: ledger.programId, authority: attacker });
  const { bump } = await deriveProgramDataAddress(own.programId);
  const data = Uint8Array.from(instruction.data!);
  data[4] = bump;

  // When the attacker initializes ABAS naming its own program's ProgramData
  const outcome = await send(
    ledger,
    [withData(withAccount(instruction, 4, { address: own.programData, role: AccountRole.READONLY }), data)],
    [],
    { feePayer: attacker },
  );

  // Then it fails with InvalidPda: the ProgramData must be the one of [this program's id]
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PDA);
  assert.equal(getAccount(ledger, ledger.credential), undefined);
});

test("initialize of a program made immutable before it was initialized fails with NotUpgradeAuthority", async () => {
  // Given a deployment whose authority removed itself (SetAuthority to none) before initialize
  const ledger = await createTestLedger({ initialize: false });
  expectSuccess(
    await send(ledger, [buildMakeImmutableInstruction(ledger.deployment.programData, ledger.payer)]),
  );

  // When the former authority runs initialize
  const outcome = await send(ledger, [
    await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
  ]);

  // Then it fails with NotUpgradeAuthority: nobody can initialize an immutable program
  expectProgramError(outcome, ABAS_PROGRAM__NOT_UPGRADE_AUTHORITY);
});

test("initialize of a program deployed without the Upgradeable Loader fails with InvalidProgramData", async () => {
  // Given the program deployed by the non-upgradeable BPF loader: it has no ProgramData account
  const ledger = await createTestLedger({ initialize: false });
  const program = await generateKeyPairSigner();
  ledger.svm.addProgramWithLoader(program.address, readProgramBytes(), BPF_LOADER_2_ADDRESS);

  // When anyone runs initialize on it
  const outcome = await send(ledger, [
    await buildInitializeInstruction({ programId: program.address, authority: ledger.payer }),
  ]);

  // Then it fails with InvalidProgramData, naming the account that is not a ProgramData
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PROGRAM_DATA, 0);
});
