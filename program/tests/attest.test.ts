import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE,
  ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED,
  ABAS_PROGRAM__AGENT_REVOKED,
  ABAS_PROGRAM__AGENT_SUSPENDED,
  ABAS_PROGRAM__DUPLICATE_ATTESTATION,
  ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION,
  ABAS_PROGRAM__INVALID_ACTION_TYPE,
  ABAS_PROGRAM__INVALID_CREDENTIAL,
  ABAS_PROGRAM__INVALID_INSTRUCTION,
  ABAS_PROGRAM__INVALID_INSTRUCTION_DATA,
  ABAS_PROGRAM__INVALID_INSTRUCTIONS_SYSVAR,
  ABAS_PROGRAM__INVALID_PDA,
  ABAS_PROGRAM__INVALID_PRIVACY_FLAG,
  ABAS_PROGRAM__INVALID_SCHEMA,
  ABAS_PROGRAM__MALFORMED_ED25519_INSTRUCTION,
  ABAS_PROGRAM__MESSAGE_MISMATCH,
  ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION,
  ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE,
  ABAS_PROGRAM__NOT_AGENT_OPERATOR,
  ABAS_PROGRAM__NOT_ENOUGH_ACCOUNTS,
  ABAS_PROGRAM__SIGNER_MISMATCH,
  getProgramErrorName,
  type AbasProgramErrorCode,
} from "@abas/errors";
import {
  ActionType,
  AgentStatus,
  buildAttestMessage,
  buildEd25519VerifyInstruction,
  computeCommitment,
  decodeAgentAccount,
  decodeAttestationAccount,
  ED25519_PROGRAM_ADDRESS,
  encodeAttestInstructionData,
  encodeEd25519InstructionData,
  signMessageWithKeyPair,
} from "@abas/program-client";
import { getSetComputeUnitLimitInstruction } from "@solana-program/compute-budget";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  AccountRole,
  address,
  generateKeyPairSigner,
  getAddressEncoder,
  lamports,
  verifySignature,
  type Address,
  type Instruction,
  type SignatureBytes,
} from "@solana/kit";

import {
  advanceLedgerTime,
  attest,
  balanceOf,
  buildSignedAttest,
  createFundedSigner,
  createOperator,
  createTestLedger,
  expectProgramError,
  expectSuccess,
  getAccount,
  hashPayload,
  instructionFailureOf,
  randomHash,
  readAccount,
  registerAgent,
  send,
  setAccount,
  REFUSING_UPDATES,
  updateAgent,
  withAccount,
  withData,
  type RegisteredAgent,
  type SignedAttest,
  type TestLedger,
} from "./harness.js";
import { accountPosition } from "./idl-positions.js";

const CLOCK_SYSVAR_ADDRESS = address("SysvarC1ock11111111111111111111111111111111");

// Account order of `attest` (docs/program.md).
const OPERATOR = accountPosition("attest", "operator");
const AGENT_ACCOUNT = accountPosition("attest", "agentAccount");
const ATTESTATION = accountPosition("attest", "attestation");
const CREDENTIAL = accountPosition("attest", "credential");
const SCHEMA = accountPosition("attest", "attestationSchema");
const INSTRUCTIONS_SYSVAR = accountPosition("attest", "instructionsSysvar");

async function arrange(
  allowedActionTypes = 0b1111,
): Promise<{ ledger: TestLedger; registered: RegisteredAgent }> {
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger, { allowedActionTypes });
  return { ledger, registered };
}

async function signedAttest(
  ledger: TestLedger,
  registered: RegisteredAgent,
  input: Partial<Pick<SignedAttest, "actionType" | "privacyMode" | "storedHash">> = {},
): Promise<SignedAttest> {
  return await buildSignedAttest(ledger, {
    operator: registered.operator,
    agent: registered.agent,
    ...input,
  });
}

/** Sends the precompile instruction and a modified attest instruction. */
async function sendAttestWith(
  ledger: TestLedger,
  signed: SignedAttest,
  modify: (attest: Instruction) => Instruction,
) {
  const [precompile, attestInstruction] = signed.instructions;
  return await send(ledger, [precompile, modify(attestInstruction)]);
}

function expectNothingRecorded(ledger: TestLedger, signed: SignedAttest): void {
  assert.equal(getAccount(ledger, signed.attestation), undefined, "no attestation account was created");
}

test("attest records a BehaviorAttestation with the agent's signature and the ledger's time", async () => {
  // Given an active agent and a ledger clock that has moved on since its registration
  const { ledger, registered } = await arrange();
  const time = advanceLedgerTime(ledger, { seconds: 125n, slots: 310n });
  const storedHash = hashPayload({ tool: "search", query: "solana attestation service" });
  const operatorBefore = balanceOf(ledger, registered.operator.address);

  // When the operator submits the action signed by the agent
  const recorded = await attest(ledger, { ...registered, actionType: ActionType.ToolCall, storedHash });

  // Then the attestation account at ["attestation", agent, hash] has the SAS layout, 331 bytes
  const account = readAccount(ledger, recorded.attestation);
  assert.equal(account.owner, ledger.programId);
  assert.equal(account.data.length, 331);
  const rent = ledger.svm.minimumBalanceForRentExemption(331n);
  assert.equal(account.lamports, rent);
  assert.equal(
    operatorBefore - balanceOf(ledger, registered.operator.address),
    rent,
    "the operator pays the rent",
  );
  const encode = (a: Address) => getAddressEncoder().encode(a);
  assert.equal(account.data[0], 2);
  assert.deepEqual(account.data.subarray(1, 33), storedHash, "nonce = stored hash");
  assert.deepEqual(account.data.subarray(33, 65), encode(ledger.credential));
  assert.deepEqual(account.data.subarray(65, 97), encode(ledger.attestationSchema));
  assert.deepEqual([...account.data.subarray(97, 101)], [158, 0, 0, 0]);
  assert.deepEqual(account.data.subarray(101, 103), Uint8Array.of(ActionType.ToolCall, 0));
  assert.deepEqual(account.data.subarray(259, 291), encode(registered.agent.address), "signer = agent");
  assert.deepEqual(account.data.subarray(291, 331), new Uint8Array(40), "expiry 0, no token account");

  // And it decodes to the action, the agent's signature, the operator and the ledger's timestamp and slot
  const decoded = decodeAttestationAccount(account.data);
  assert.deepEqual(decoded, {
    nonce: storedHash,
    credential: ledger.credential,
    schema: ledger.attestationSchema,
    signer: registered.agent.address,
    expiry: 0n,
    tokenAccount: address("11111111111111111111111111111111"),
    actionType: ActionType.ToolCall,
    privacyMode: false,
    storedHash,
    agentSignature: Uint8Array.from(recorded.signature),
    operator: registered.operator.address,
    timestamp: time.unixTimestamp,
    slot: time.slot,
  });

  // And the stored signature verifies against the attest message with the agent's key
  const message = buildAttestMessage({
    programId: ledger.programId,
    agent: registered.agent.address,
    actionType: ActionType.ToolCall,
    privacyMode: false,
    storedHash,
  });
  assert.ok(
    await verifySignature(
      registered.agent.keyPair.publicKey,
      decoded.agentSignature as SignatureBytes,
      message,
    ),
  );

  // And the agent's counters record it
  const agent = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.equal(agent.attestationCount, 1n);
  assert.equal(agent.lastAttestedAt, time.unixTimestamp);
});

test("attest in privacy mode stores the salted commitment with privacy_mode = 1", async () => {
  // Given an agent, an action hash and a salt only the receipt holder keeps
  const { ledger, registered } = await arrange();
  const actionHash = hashPayload({ decision: "approve", amount: 42 });
  const salt = randomHash();
  const commitment = computeCommitment(salt, actionHash);

  // When the operator attests the commitment in privacy mode
  const recorded = await attest(ledger, {
    ...registered,
    actionType: ActionType.Decision,
    privacyMode: true,
    storedHash: commitment,
  });

  // Then the ledger holds the commitment, never the action hash itself
  const account = readAccount(ledger, recorded.attestation);
  const decoded = decodeAttestationAccount(account.data);
  assert.equal(decoded.privacyMode, true);
  assert.equal(account.data[102], 1);
  assert.deepEqual(decoded.storedHash, commitment);
  assert.deepEqual(decoded.nonce, commitment);
  assert.equal(Buffer.from(account.data).indexOf(Buffer.from(actionHash)), -1);
  assert.deepEqual(decoded.agentSignature, Uint8Array.from(recorded.signature));
  assert.equal(decoded.timestamp, ledger.svm.getClock().unixTimestamp);
});

test("each attestation increments attestation_count and moves last_attested_at", async () => {
  // Given an agent that attested once
  const { ledger, registered } = await arrange();
  await attest(ledger, registered);

  // When it attests twice more, later
  await attest(ledger, { ...registered, actionType: ActionType.Transaction });
  const later = advanceLedgerTime(ledger, { seconds: 60n, slots: 150n });
  await attest(ledger, { ...registered, actionType: ActionType.ModelInvocation, privacyMode: true });

  // Then the counters say three attestations, the last one at the later time
  const agent = decodeAgentAccount(readAccount(ledger, registered.agentAccount).data);
  assert.equal(agent.attestationCount, 3n);
  assert.equal(agent.lastAttestedAt, later.unixTimestamp);
  assert.equal(agent.batchCount, 0n);
});

for (const [status, code, name] of [
  [AgentStatus.Suspended, ABAS_PROGRAM__AGENT_SUSPENDED, "AgentSuspended"],
  [AgentStatus.Revoked, ABAS_PROGRAM__AGENT_REVOKED, "AgentRevoked"],
] as const) {
  test(`attest for a ${name === "AgentSuspended" ? "suspended" : "revoked"} agent fails with ${name}`, async () => {
    // Given an agent its operator ${status === AgentStatus.Suspended ? "suspended" : "revoked"}
    const { ledger, registered } = await arrange();
    await updateAgent(ledger, registered, { status });

    // When the operator submits a correctly signed action
    const signed = await signedAttest(ledger, registered);
    const outcome = await send(ledger, signed.instructions);

    // Then it fails and nothing is recorded
    expectProgramError(outcome, code);
    expectNothingRecorded(ledger, signed);
  });
}

test("attest of an action type outside the agent's policy fails with ActionTypeNotAllowed", async () => {
  // Given an agent allowed only Transaction
  const { ledger, registered } = await arrange(0b0001);

  // When the operator attests a ToolCall
  const signed = await signedAttest(ledger, registered, { actionType: ActionType.ToolCall });
  const outcome = await send(ledger, signed.instructions);

  // Then it fails with ActionTypeNotAllowed
  expectProgramError(outcome, ABAS_PROGRAM__ACTION_TYPE_NOT_ALLOWED);
  expectNothingRecorded(ledger, signed);
});

test("attest with action type 4 fails with InvalidActionType", async () => {
  // Given an attest instruction whose action type byte is 4
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const data = encodeAttestInstructionData({
    actionType: 4,
    privacyMode: false,
    attestationBump: signed.attestationBump,
    storedHash: signed.storedHash,
  });

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) => withData(ix, data));

  // Then it fails with InvalidActionType
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_ACTION_TYPE);
});

test("attest with privacy flag 2 fails with InvalidPrivacyFlag", async () => {
  // Given an attest instruction whose privacy flag byte is 2
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const data = encodeAttestInstructionData({
    actionType: signed.actionType,
    privacyMode: 2,
    attestationBump: signed.attestationBump,
    storedHash: signed.storedHash,
  });

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) => withData(ix, data));

  // Then it fails with InvalidPrivacyFlag
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PRIVACY_FLAG);
});

test("attest submitted by another operator fails with NotAgentOperator", async () => {
  // Given an action correctly signed by the agent, submitted by an operator that is not the agent's
  const { ledger, registered } = await arrange();
  const stranger = await createOperator(ledger);
  const signed = await buildSignedAttest(ledger, { operator: stranger, agent: registered.agent });

  // When the stranger sends it
  const outcome = await send(ledger, signed.instructions);

  // Then it fails with NotAgentOperator
  expectProgramError(outcome, ABAS_PROGRAM__NOT_AGENT_OPERATOR);
  expectNothingRecorded(ledger, signed);
});

test("attest with the message signed by another key fails with SignerMismatch", async () => {
  // Given the right attest message, signed and verified with a key that is not the agent's
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const impostor = await generateKeyPairSigner();
  const signature = await signMessageWithKeyPair(impostor.keyPair, signed.message);
  const precompile = buildEd25519VerifyInstruction({
    publicKey: impostor.address,
    message: signed.message,
    signature,
  });

  // When it is sent before the attest instruction
  const outcome = await send(ledger, [precompile, signed.instructions[1]]);

  // Then the precompile accepts it but the program fails with SignerMismatch
  expectProgramError(outcome, ABAS_PROGRAM__SIGNER_MISMATCH);
  expectNothingRecorded(ledger, signed);
});

test("attest with the agent's signature of another message fails with MessageMismatch", async () => {
  // Given the agent's valid signature of a message about another hash
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const other = await signedAttest(ledger, registered, { storedHash: randomHash() });

  // When that precompile instruction precedes the attest instruction
  const outcome = await send(ledger, [other.instructions[0], signed.instructions[1]]);

  // Then it fails with MessageMismatch
  expectProgramError(outcome, ABAS_PROGRAM__MESSAGE_MISMATCH);
  expectNothingRecorded(ledger, signed);
});

test("attest whose signed message differs only in the action type fails with MessageMismatch", async () => {
  // Given the agent signed a ToolCall but the instruction says Decision
  const { ledger, registered } = await arrange();
  const signedToolCall = await signedAttest(ledger, registered, { actionType: ActionType.ToolCall });
  const decision = await signedAttest(ledger, registered, {
    actionType: ActionType.Decision,
    storedHash: signedToolCall.storedHash,
  });

  // When the ToolCall signature accompanies the Decision instruction
  const outcome = await send(ledger, [signedToolCall.instructions[0], decision.instructions[1]]);

  // Then it fails with MessageMismatch
  expectProgramError(outcome, ABAS_PROGRAM__MESSAGE_MISMATCH);
});

test("attest without the Ed25519 instruction fails with MissingEd25519Instruction", async () => {
  // Given a correct attest instruction
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);

  // When it is sent alone
  const alone = await send(ledger, [signed.instructions[1]]);

  // Then it fails with MissingEd25519Instruction
  expectProgramError(alone, ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION);

  // And also when another program's instruction sits between the precompile and attest
  const between = await send(ledger, [
    signed.instructions[0],
    getSetComputeUnitLimitInstruction({ units: 400_000 }),
    signed.instructions[1],
  ]);
  expectProgramError(between, ABAS_PROGRAM__MISSING_ED25519_INSTRUCTION, 2);
  expectNothingRecorded(ledger, signed);
});

test("attest accepts a precompile instruction that names its own index instead of 0xFFFF", async () => {
  // Given a precompile instruction at index 0 whose three instruction indexes are 0
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const data = encodeEd25519InstructionData({
    publicKey: registered.agent.address,
    signature: signed.signature,
    message: signed.message,
    overrides: { signatureInstructionIndex: 0, publicKeyInstructionIndex: 0, messageInstructionIndex: 0 },
  });

  // When it precedes the attest instruction
  const outcome = await send(ledger, [
    { programAddress: ED25519_PROGRAM_ADDRESS, data },
    signed.instructions[1],
  ]);

  // Then the attestation is recorded
  expectSuccess(outcome);
  assert.ok(getAccount(ledger, signed.attestation));
});

test("attest where the precompile verifies bytes of the attest instruction fails with Ed25519OffsetsOutsideInstruction", async () => {
  // Given the agent signed the bytes of the attest instruction's data (a valid signature of something)
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const attestData = (signed.instructions[1] as Instruction & { data: Uint8Array }).data;
  const signature = await signMessageWithKeyPair(registered.agent.keyPair, attestData);
  // And a precompile instruction whose message is read from instruction 1, the attest instruction
  const data = encodeEd25519InstructionData({
    publicKey: registered.agent.address,
    signature,
    message: new Uint8Array(0),
    overrides: { messageInstructionIndex: 1, messageDataOffset: 0, messageDataSize: attestData.length },
  });

  // When the transaction runs
  const outcome = await send(ledger, [
    { programAddress: ED25519_PROGRAM_ADDRESS, data },
    signed.instructions[1],
  ]);

  // Then the precompile accepts it, but the program fails with Ed25519OffsetsOutsideInstruction
  expectProgramError(outcome, ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION);
  expectNothingRecorded(ledger, signed);
});

// The precompile instruction right before attest points one of its three fields at instruction 0,
// another (valid) precompile instruction that holds the real key, signature and message.
for (const field of ["signature", "publicKey", "message"] as const) {
  test(`attest where the precompile reads the ${field} from another instruction fails with Ed25519OffsetsOutsideInstruction`, async () => {
    // Given a valid precompile instruction at index 0
    const { ledger, registered } = await arrange();
    const signed = await signedAttest(ledger, registered);
    const [first] = signed.instructions;
    // And at index 1 a precompile instruction that reads its ${field} from instruction 0
    const overrides = {
      signature: { signatureInstructionIndex: 0 },
      publicKey: { publicKeyInstructionIndex: 0 },
      message: { messageInstructionIndex: 0 },
    }[field];
    const data = encodeEd25519InstructionData({
      publicKey: registered.agent.address,
      signature: signed.signature,
      message: signed.message,
      overrides,
    });

    // When the transaction runs
    const outcome = await send(ledger, [
      first,
      { programAddress: ED25519_PROGRAM_ADDRESS, data },
      signed.instructions[1],
    ]);

    // Then both precompile instructions verify, but the program fails with Ed25519OffsetsOutsideInstruction
    expectProgramError(outcome, ABAS_PROGRAM__ED25519_OFFSETS_OUTSIDE_INSTRUCTION, 2);
    expectNothingRecorded(ledger, signed);
  });
}

/** Precompile data with the same (valid) signature record repeated `count` times. */
function precompileDataWithSignatures(
  signed: SignedAttest,
  publicKey: Uint8Array,
  count: number,
): Uint8Array {
  const headerSize = 2 + 14 * count;
  const keyAt = headerSize;
  const signatureAt = keyAt + 32;
  const messageAt = signatureAt + 64;
  const data = new Uint8Array(messageAt + signed.message.length);
  const view = new DataView(data.buffer);
  data[0] = count;
  for (let i = 0; i < count; i++) {
    const record = [signatureAt, 0xffff, keyAt, 0xffff, messageAt, signed.message.length, 0xffff];
    record.forEach((value, j) => view.setUint16(2 + 14 * i + 2 * j, value, true));
  }
  data.set(publicKey, keyAt);
  data.set(signed.signature, signatureAt);
  data.set(signed.message, messageAt);
  return data;
}

test("attest after a precompile instruction with two signatures fails with MalformedEd25519Instruction", async () => {
  // Given a precompile instruction verifying the agent's signature twice (two offsets records)
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const data = precompileDataWithSignatures(
    signed,
    getAddressEncoder().encode(registered.agent.address) as Uint8Array,
    2,
  );

  // When it precedes the attest instruction
  const outcome = await send(ledger, [
    { programAddress: ED25519_PROGRAM_ADDRESS, data },
    signed.instructions[1],
  ]);

  // Then the precompile verifies both, but the program fails with MalformedEd25519Instruction
  expectProgramError(outcome, ABAS_PROGRAM__MALFORMED_ED25519_INSTRUCTION);
  expectNothingRecorded(ledger, signed);
});

test("attest after a precompile instruction with no signature fails with MalformedEd25519Instruction", async () => {
  // Given a precompile instruction that verifies nothing ([0, 0] is valid for the precompile)
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);

  // When it precedes the attest instruction
  const outcome = await send(ledger, [
    { programAddress: ED25519_PROGRAM_ADDRESS, data: Uint8Array.of(0, 0) },
    signed.instructions[1],
  ]);

  // Then the program fails with MalformedEd25519Instruction
  expectProgramError(outcome, ABAS_PROGRAM__MALFORMED_ED25519_INSTRUCTION);
});

test("an agent signature that does not verify is rejected by the precompile and nothing is recorded", async () => {
  // Given a precompile instruction carrying a corrupted signature
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const corrupted = Uint8Array.from(signed.signature);
  corrupted[10] = corrupted[10]! ^ 0xff;
  const precompile = buildEd25519VerifyInstruction({
    publicKey: registered.agent.address,
    message: signed.message,
    signature: corrupted,
  });

  // When it is sent with the attest instruction
  const outcome = await send(ledger, [precompile, signed.instructions[1]]);

  // Then the transaction fails at the precompile (instruction 0), not in the program
  const failure = instructionFailureOf(outcome.result);
  assert.equal(failure?.instructionIndex, 0);
  expectNothingRecorded(ledger, signed);
});

test("an operator that cannot pay the rent fails with the system program's error 1, not a program code", async () => {
  // Given an agent whose operator holds less than the rent of an attestation account, and a payer for the fee
  const ledger = await createTestLedger();
  const registered = await registerAgent(ledger);
  const rent = ledger.svm.minimumBalanceForRentExemption(331n);
  const poor = balanceOf(ledger, registered.operator.address);
  const transfer = await send(ledger, [
    getTransferSolInstruction({
      source: registered.operator,
      destination: ledger.payer.address,
      amount: poor - rent + 1n,
    }),
  ]);
  expectSuccess(transfer);

  // When it attests
  const signed = await buildSignedAttest(ledger, registered);
  const outcome = await send(ledger, signed.instructions);

  // Then the system program's CreateAccount fails (custom error 1, ResultWithNegativeLamports) and
  // ends the transaction at our instruction: the program never returns CrossProgramInvocationFailed
  assert.deepEqual(instructionFailureOf(outcome.result), {
    instructionIndex: 1,
    code: 1,
    builtin: undefined,
  });
  expectNothingRecorded(ledger, signed);
});

test("attesting the same hash twice fails with DuplicateAttestation", async () => {
  // Given an action the agent already attested
  const { ledger, registered } = await arrange();
  const first = await attest(ledger, registered);
  const recorded = readAccount(ledger, first.attestation);

  // When the same signed action is submitted again
  const again = await send(ledger, first.instructions);

  // Then it fails with DuplicateAttestation and the record is unchanged
  expectProgramError(again, ABAS_PROGRAM__DUPLICATE_ATTESTATION);
  assert.deepEqual(readAccount(ledger, first.attestation), recorded);

  // And the same hash under another action type is the same record, so also a duplicate
  const otherType = await signedAttest(ledger, registered, {
    actionType: ActionType.Transaction,
    storedHash: first.storedHash,
  });
  expectProgramError(await send(ledger, otherType.instructions), ABAS_PROGRAM__DUPLICATE_ATTESTATION);
  assert.equal(decodeAgentAccount(readAccount(ledger, registered.agentAccount).data).attestationCount, 1n);
});

for (const [change, update] of REFUSING_UPDATES) {
  test(`an attested hash sent again after ${change} fails with DuplicateAttestation`, async () => {
    // Given a ModelInvocation the agent attested, then a change of the agent that refuses new ones
    const { ledger, registered } = await arrange();
    const first = await attest(ledger, registered);
    await updateAgent(ledger, registered, update);

    // When the same signed action is submitted again (a resend whose first answer was lost)
    const again = await send(ledger, first.instructions);

    // Then the answer says the record is on the ledger: a refusal of a resend is final
    expectProgramError(again, ABAS_PROGRAM__DUPLICATE_ATTESTATION);
  });
}

test("the same hash attested by two different agents gives two records", async () => {
  // Given two agents of one operator
  const { ledger, registered } = await arrange();
  const second = await registerAgent(ledger, { operator: registered.operator });
  const storedHash = randomHash();

  // When both attest the same hash
  const a = await attest(ledger, { ...registered, storedHash });
  const b = await attest(ledger, { ...second, storedHash });

  // Then each has its own record, signed by itself
  assert.notEqual(a.attestation, b.attestation);
  assert.equal(
    decodeAttestationAccount(readAccount(ledger, a.attestation).data).signer,
    registered.agent.address,
  );
  assert.equal(
    decodeAttestationAccount(readAccount(ledger, b.attestation).data).signer,
    second.agent.address,
  );
});

test("attest with another account as the instructions sysvar fails with InvalidInstructionsSysvar", async () => {
  // Given an attest instruction that passes the Clock sysvar where the instructions sysvar belongs
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) =>
    withAccount(ix, INSTRUCTIONS_SYSVAR, { address: CLOCK_SYSVAR_ADDRESS, role: AccountRole.READONLY }),
  );

  // Then it fails with InvalidInstructionsSysvar
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_INSTRUCTIONS_SYSVAR);
});

test("attest with an account that is not the program's Credential fails with InvalidCredential", async () => {
  // Given a byte-for-byte copy of the Credential owned by another program
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const copy = (await generateKeyPairSigner()).address;
  const otherProgram = (await generateKeyPairSigner()).address;
  setAccount(ledger, {
    address: copy,
    owner: otherProgram,
    data: readAccount(ledger, ledger.credential).data,
  });

  // When it is passed as the credential
  const foreign = await sendAttestWith(ledger, signed, (ix) =>
    withAccount(ix, CREDENTIAL, { address: copy, role: AccountRole.READONLY }),
  );

  // Then it fails with InvalidCredential
  expectProgramError(foreign, ABAS_PROGRAM__INVALID_CREDENTIAL);

  // And so does another account of the program (the attestation Schema) in its place
  const wrong = await sendAttestWith(ledger, signed, (ix) =>
    withAccount(ix, CREDENTIAL, { address: ledger.attestationSchema, role: AccountRole.READONLY }),
  );
  expectProgramError(wrong, ABAS_PROGRAM__INVALID_CREDENTIAL);
  expectNothingRecorded(ledger, signed);
});

test("attest with the BehaviorBatch Schema fails with InvalidSchema", async () => {
  // Given an attest instruction that passes the batch Schema
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) =>
    withAccount(ix, SCHEMA, { address: ledger.batchSchema, role: AccountRole.READONLY }),
  );

  // Then it fails with InvalidSchema
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_SCHEMA);
  expectNothingRecorded(ledger, signed);
});

test("attest into an account that is not the attestation PDA fails with InvalidPda", async () => {
  // Given an attest instruction whose attestation account is an arbitrary address
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const elsewhere = (await generateKeyPairSigner()).address;

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) =>
    withAccount(ix, ATTESTATION, { address: elsewhere, role: AccountRole.WRITABLE }),
  );

  // Then it fails with InvalidPda and nothing is created there
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PDA);
  assert.equal(getAccount(ledger, elsewhere), undefined);
});

test("attest with a wrong bump fails with InvalidPda", async () => {
  // Given the right attestation account but another bump in the data
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);
  const data = encodeAttestInstructionData({
    actionType: signed.actionType,
    privacyMode: signed.privacyMode,
    attestationBump: (signed.attestationBump + 255) % 256,
    storedHash: signed.storedHash,
  });

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) => withData(ix, data));

  // Then it fails with InvalidPda
  expectProgramError(outcome, ABAS_PROGRAM__INVALID_PDA);
});

for (const [what, length] of [
  ["short", 35],
  ["long", 37],
] as const) {
  test(`attest with ${what} data (${length} bytes) fails with InvalidInstructionData`, async () => {
    // Given attest data of ${length} bytes instead of 36
    const { ledger, registered } = await arrange();
    const signed = await signedAttest(ledger, registered);
    const original = (signed.instructions[1] as Instruction & { data: Uint8Array }).data;
    const data = new Uint8Array(length);
    data.set(original.subarray(0, Math.min(length, original.length)));

    // When it is sent
    const outcome = await sendAttestWith(ledger, signed, (ix) => withData(ix, data));

    // Then it fails with InvalidInstructionData
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_INSTRUCTION_DATA);
  });
}

for (const [what, data] of [
  ["empty data", new Uint8Array(0)],
  ["instruction byte 6", Uint8Array.of(6)],
  ["instruction byte 255 and a 36-byte body", Uint8Array.from({ length: 36 }, (_, i) => (i === 0 ? 255 : i))],
] as const) {
  test(`an instruction with ${what} fails with InvalidInstruction`, async () => {
    // Given the accounts of attest but ${what}
    const { ledger, registered } = await arrange();
    const signed = await signedAttest(ledger, registered);

    // When it is sent
    const outcome = await sendAttestWith(ledger, signed, (ix) => withData(ix, data));

    // Then it fails with InvalidInstruction
    expectProgramError(outcome, ABAS_PROGRAM__INVALID_INSTRUCTION);
  });
}

test("attest with six accounts fails with NotEnoughAccounts", async () => {
  // Given an attest instruction without its last account (the system program)
  const { ledger, registered } = await arrange();
  const signed = await signedAttest(ledger, registered);

  // When it is sent
  const outcome = await sendAttestWith(ledger, signed, (ix) => ({
    ...ix,
    accounts: ix.accounts!.slice(0, 6),
  }));

  // Then it fails with NotEnoughAccounts
  expectProgramError(outcome, ABAS_PROGRAM__NOT_ENOUGH_ACCOUNTS);
});

const accountRuleCases: [string, number, AccountRole, AbasProgramErrorCode][] = [
  ["the operator does not sign", OPERATOR, AccountRole.WRITABLE, ABAS_PROGRAM__MISSING_REQUIRED_SIGNATURE],
  ["the agent account is read-only", AGENT_ACCOUNT, AccountRole.READONLY, ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE],
  [
    "the attestation account is read-only",
    ATTESTATION,
    AccountRole.READONLY,
    ABAS_PROGRAM__ACCOUNT_NOT_WRITABLE,
  ],
];
for (const [what, index, role, code] of accountRuleCases) {
  test(`attest where ${what} fails with ${getProgramErrorName(code)}`, async () => {
    // Given a correctly signed action where ${what}
    const { ledger, registered } = await arrange();
    const signed = await signedAttest(ledger, registered);
    const target = signed.instructions[1].accounts![index]!.address;

    // When it is sent (the ledger's payer pays the fee)
    const outcome = await sendAttestWith(ledger, signed, (ix) =>
      withAccount(ix, index, { address: target, role }),
    );

    // Then the program rejects it
    expectProgramError(outcome, code);
    expectNothingRecorded(ledger, signed);
  });
}

for (const [what, prefund] of [
  ["less than the rent", 1_000_000n],
  ["more than the rent", 10_000_000n],
] as const) {
  test(`attest still succeeds when someone already sent ${what} to the attestation address`, async () => {
    // Given someone sent lamports to the address the attestation will have
    const { ledger, registered } = await arrange();
    const signed = await signedAttest(ledger, registered);
    const griefer = await createFundedSigner(ledger);
    expectSuccess(
      await send(
        ledger,
        [
          getTransferSolInstruction({
            source: griefer,
            destination: signed.attestation,
            amount: lamports(prefund),
          }),
        ],
        [],
        { feePayer: griefer },
      ),
    );
    assert.equal(readAccount(ledger, signed.attestation).owner, address("11111111111111111111111111111111"));

    // When the operator attests the action
    expectSuccess(await send(ledger, signed.instructions));

    // Then the attestation is recorded, rent-exempt, owned by the program
    const account = readAccount(ledger, signed.attestation);
    const rent = ledger.svm.minimumBalanceForRentExemption(331n);
    assert.equal(account.owner, ledger.programId);
    assert.equal(account.lamports, prefund > rent ? prefund : rent);
    assert.equal(decodeAttestationAccount(account.data).signer, registered.agent.address);
  });
}
