/**
 * The ABAS program's instructions in jsonParsed, read with @solana/web3.js's getParsedTransaction
 * and @solana/kit's getTransaction: an agent registered and its policy changed, an action attested,
 * a batch of three committed and its leaves published, each instruction built by
 * @abas/program-client and shown under its IDL account names with its data in ABAS's terms; the
 * genesis initialize; and an instruction whose data the program refuses, partially decoded.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import {
  ALL_ACTION_TYPES_MASK,
  ActionType,
  AgentStatus,
  actionTypesMask,
  buildAttestBatchInstruction,
  buildAttestInstruction,
  buildAttestMessage,
  buildBatchMessage,
  buildEd25519VerifyInstruction,
  buildPublishBatchLeavesInstruction,
  buildRegisterAgentInstruction,
  buildUpdateAgentInstruction,
  bytesToHex,
  computeBatchMerkleRoot,
  deriveAgentAddress,
  deriveAttestationAddress,
  deriveBatchAddress,
  deriveIssuerAddresses,
  deriveProgramDataAddress,
  sha256,
  signMessageWithKeyPair,
  type LeafData,
} from "@abas/program-client";
import { PublicKey } from "@solana/web3.js";
import {
  address,
  generateKeyPairSigner,
  getBase58Decoder,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Signature,
} from "@solana/kit";

import { kitClients } from "./support/ledger-under-test.js";
import { landedError, readShown, type Shown } from "./support/parsed-instructions.js";
import { latestBlockhash, sendBase64, signInstructions } from "./support/transactions.js";
import { startWeb3Ledger, type Web3Ledger } from "./support/web3-ledger.js";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const INSTRUCTIONS_SYSVAR = "Sysvar1nstructions1111111111111111111111111";
const ED25519_PROGRAM = "Ed25519SigVerify111111111111111111111111111";

const abas = (type: string, info: Record<string, unknown>): Shown => ({
  program: "abas-attestation",
  type,
  info,
});

describe("ABAS instructions in jsonParsed", () => {
  let web3: Web3Ledger;
  let programId: Address;
  let operator: KeyPairSigner;
  let agent: KeyPairSigner;

  /**
   * Signs `instructions` with the operator, sends them without a preflight (a refused transaction
   * lands failed, as on a cluster) and waits until they land; asserts the outcome.
   */
  async function land(instructions: readonly Instruction[], outcome: "succeeds" | "fails" = "succeeds") {
    const lifetime = await latestBlockhash(web3.ledger.rpcUrl);
    const signed = await signInstructions(operator, instructions, lifetime);
    const reply = await sendBase64(web3.ledger.rpcUrl, signed, { skipPreflight: true });
    assert.equal(reply.error, undefined, JSON.stringify(reply.error));
    const err = await landedError(web3.connection, signed.signature);
    assert.equal(err === null, outcome === "succeeds", JSON.stringify(err));
    return signed.signature;
  }

  /** The transaction's top-level instructions as web3.js shows them, checked against kit's reading. */
  async function shownTop(signature: string): Promise<Shown[]> {
    const { top } = await readShown(web3.connection, signature);
    const read = await kitClients(web3.ledger)
      .rpc.getTransaction(signature as Signature, {
        encoding: "jsonParsed",
        maxSupportedTransactionVersion: 0,
      })
      .send();
    assert.ok(read);
    const kitShown = read.transaction.message.instructions.map((instruction) =>
      "parsed" in instruction
        ? {
            program: instruction.program,
            type: (instruction.parsed as { type: string }).type,
            info: (instruction.parsed as { info: unknown }).info,
          }
        : { unparsed: instruction.programId, data: instruction.data },
    );
    // kit reads every JSON number as a bigint
    const numbers = JSON.parse(
      JSON.stringify(kitShown, (_, value: unknown) => (typeof value === "bigint" ? Number(value) : value)),
    );
    assert.deepEqual(numbers, top);
    return top;
  }

  before(async () => {
    web3 = await startWeb3Ledger();
    programId = address(web3.ledger.programId);
    operator = await generateKeyPairSigner();
    const funding = await web3.connection.requestAirdrop(new PublicKey(operator.address), 10_000_000_000);
    await web3.connection.confirmTransaction({
      signature: funding,
      ...(await web3.connection.getLatestBlockhash()),
    });
    agent = await generateKeyPairSigner();
  });
  after(async () => {
    await web3.stop();
  });

  test("the genesis initialize, with the issuer's accounts and their bumps", async () => {
    const issuer = await deriveIssuerAddresses(programId);
    const programData = await deriveProgramDataAddress(programId);
    const history = await web3.connection.getSignaturesForAddress(new PublicKey(programId));
    const shown = (await Promise.all(history.map(({ signature }) => shownTop(signature)))).flat();

    assert.deepEqual(
      shown.find((instruction) => "type" in instruction && instruction.type === "initialize"),
      abas("initialize", {
        authority: web3.ledger.faucet,
        credential: issuer.credential.address,
        attestationSchema: issuer.attestationSchema.address,
        batchSchema: issuer.batchSchema.address,
        programData: programData.address,
        systemProgram: SYSTEM_PROGRAM,
        credentialBump: issuer.credential.bump,
        attestationSchemaBump: issuer.attestationSchema.bump,
        batchSchemaBump: issuer.batchSchema.bump,
        programDataBump: programData.bump,
      }),
    );
  });

  test("registerAgent and updateAgent: the policy as the action types it allows, the status by name", async () => {
    const agentAccount = await deriveAgentAddress(programId, agent.address);

    const registered = await land([
      await buildRegisterAgentInstruction({
        programId,
        operator,
        agent,
        allowedActionTypes: ALL_ACTION_TYPES_MASK,
      }),
    ]);
    const updated = await land([
      await buildUpdateAgentInstruction({
        programId,
        operator,
        agent: agent.address,
        status: AgentStatus.Active,
        allowedActionTypes: actionTypesMask([ActionType.ToolCall, ActionType.Decision]),
      }),
    ]);

    assert.deepEqual(await shownTop(registered), [
      abas("registerAgent", {
        operator: operator.address,
        agent: agent.address,
        agentAccount: agentAccount.address,
        systemProgram: SYSTEM_PROGRAM,
        agentAccountBump: agentAccount.bump,
        allowedActionTypes: ["Transaction", "ToolCall", "Decision", "ModelInvocation"],
      }),
    ]);
    assert.deepEqual(await shownTop(updated), [
      abas("updateAgent", {
        operator: operator.address,
        agentAccount: agentAccount.address,
        status: "Active",
        allowedActionTypes: ["ToolCall", "Decision"],
      }),
    ]);
  });

  test("attest after its Ed25519 instruction, which stays partially decoded as on a validator", async () => {
    const issuer = await deriveIssuerAddresses(programId);
    const storedHash = sha256(new TextEncoder().encode(JSON.stringify({ tool: "search", query: "parsed" })));
    const action = { actionType: ActionType.ToolCall, privacyMode: false, storedHash } as const;
    const message = buildAttestMessage({ programId, agent: agent.address, ...action });

    const signature = await land([
      buildEd25519VerifyInstruction({
        publicKey: agent.address,
        message,
        signature: await signMessageWithKeyPair(agent.keyPair, message),
      }),
      await buildAttestInstruction({ programId, operator, agent: agent.address, ...action }),
    ]);

    const [precompile, attest] = await shownTop(signature);
    assert.ok(precompile && "unparsed" in precompile);
    assert.equal(precompile.unparsed, ED25519_PROGRAM);
    const attestation = await deriveAttestationAddress(programId, agent.address, storedHash);
    assert.deepEqual(
      attest,
      abas("attest", {
        operator: operator.address,
        agentAccount: (await deriveAgentAddress(programId, agent.address)).address,
        attestation: attestation.address,
        credential: issuer.credential.address,
        attestationSchema: issuer.attestationSchema.address,
        instructionsSysvar: INSTRUCTIONS_SYSVAR,
        systemProgram: SYSTEM_PROGRAM,
        actionType: "ToolCall",
        privacyMode: false,
        attestationBump: attestation.bump,
        storedHash: bytesToHex(storedHash),
      }),
    );
  });

  test("attestBatch and publishBatchLeaves: the root and the leaves, privacy mode included", async () => {
    const issuer = await deriveIssuerAddresses(programId);
    const leaves: LeafData[] = ["a", "b", "c"].map((text, index) => ({
      actionType: index === 1 ? ActionType.Decision : ActionType.ToolCall,
      privacyMode: index === 2,
      storedHash: sha256(new TextEncoder().encode(text)),
    }));
    const merkleRoot = computeBatchMerkleRoot(leaves);
    const batchInput = {
      programId,
      agent: agent.address,
      itemCount: leaves.length,
      actionTypes: actionTypesMask([ActionType.ToolCall, ActionType.Decision]),
      merkleRoot,
    };
    const message = buildBatchMessage(batchInput);

    const committed = await land([
      buildEd25519VerifyInstruction({
        publicKey: agent.address,
        message,
        signature: await signMessageWithKeyPair(agent.keyPair, message),
      }),
      await buildAttestBatchInstruction({ ...batchInput, operator }),
    ]);
    const published = await land([
      await buildPublishBatchLeavesInstruction({
        programId,
        operator,
        agent: agent.address,
        merkleRoot,
        startIndex: 0,
        leaves,
      }),
    ]);

    const batch = await deriveBatchAddress(programId, agent.address, merkleRoot);
    assert.deepEqual(
      (await shownTop(committed))[1],
      abas("attestBatch", {
        operator: operator.address,
        agentAccount: (await deriveAgentAddress(programId, agent.address)).address,
        batch: batch.address,
        credential: issuer.credential.address,
        batchSchema: issuer.batchSchema.address,
        instructionsSysvar: INSTRUCTIONS_SYSVAR,
        systemProgram: SYSTEM_PROGRAM,
        itemCount: 3,
        actionTypes: ["ToolCall", "Decision"],
        batchBump: batch.bump,
        merkleRoot: bytesToHex(merkleRoot),
      }),
    );
    assert.deepEqual(await shownTop(published), [
      abas("publishBatchLeaves", {
        operator: operator.address,
        batch: batch.address,
        batchSchema: issuer.batchSchema.address,
        startIndex: 0,
        leaves: leaves.map((leaf) => ({
          actionType: leaf.actionType === ActionType.Decision ? "Decision" : "ToolCall",
          privacyMode: leaf.privacyMode,
          storedHash: bytesToHex(leaf.storedHash),
        })),
      }),
    ]);
  });

  test("an instruction whose data the program refuses lands failed and is shown partially decoded", async () => {
    // Given an updateAgent with one byte more than the instruction has, which the program refuses
    const update = await buildUpdateAgentInstruction({
      programId,
      operator,
      agent: agent.address,
      status: AgentStatus.Active,
      allowedActionTypes: ALL_ACTION_TYPES_MASK,
    });
    const data = Uint8Array.from([...update.data, 0]);

    const signature = await land([{ ...update, data }], "fails");

    assert.deepEqual(await shownTop(signature), [
      { unparsed: programId, data: getBase58Decoder().decode(data) },
    ]);
  });
});
