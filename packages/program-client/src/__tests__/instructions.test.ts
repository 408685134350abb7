import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_ACTION_TYPE_MASK,
  ABAS_SDK__INVALID_AGENT_STATUS,
  ABAS_SDK__INVALID_BATCH_SIZE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_LEAF_COUNT,
  ABAS_SDK__INVALID_LEAF_START_INDEX,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
} from "@abas/errors";
import {
  AccountRole,
  appendTransactionMessageInstructions,
  blockhash,
  createTransactionMessage,
  generateKeyPairSigner,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
} from "@solana/kit";

import { ActionType } from "../action-types.js";
import {
  deriveAgentAddress,
  deriveAttestationAddress,
  deriveBatchAddress,
  deriveProgramDataAddress,
  deriveIssuerAddresses,
} from "../addresses.js";
import { AgentStatus } from "../agent-status.js";
import { INSTRUCTIONS_SYSVAR_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from "../constants.js";
import type { AbasInstruction } from "../instructions/account-metas.js";
import { buildAttestBatchInstruction } from "../instructions/attest-batch.js";
import { buildAttestInstruction } from "../instructions/attest.js";
import { buildInitializeInstruction } from "../instructions/initialize.js";
import { buildPublishBatchLeavesInstruction } from "../instructions/publish-batch-leaves.js";
import { buildRegisterAgentInstruction } from "../instructions/register-agent.js";
import { buildUpdateAgentInstruction } from "../instructions/update-agent.js";
import type { LeafData } from "../leaf-data.js";
import { assertRejectsAbasError } from "./assert-abas-error.js";
import { AGENT, MERKLE_ROOT, PROGRAM_ID, STORED_HASH } from "./fixtures.js";

const { READONLY, WRITABLE, READONLY_SIGNER, WRITABLE_SIGNER } = AccountRole;

/** The accounts as [address, role] pairs, the order the program reads them in. */
const accountsOf = (instruction: AbasInstruction): [Address, AccountRole][] =>
  instruction.accounts.map((account: AccountMeta) => [account.address, account.role]);

const operator = await generateKeyPairSigner();
const agentSigner = await generateKeyPairSigner();
const issuer = await deriveIssuerAddresses(PROGRAM_ID);
const agentAccount = await deriveAgentAddress(PROGRAM_ID, AGENT);

describe("initialize instruction", () => {
  it("has the upgrade authority paying, the three accounts it creates writable, the ProgramData, and the bumps", async () => {
    const instruction = await buildInitializeInstruction({ programId: PROGRAM_ID, authority: operator });
    const programData = await deriveProgramDataAddress(PROGRAM_ID);
    assert.equal(instruction.programAddress, PROGRAM_ID);
    assert.deepEqual(accountsOf(instruction), [
      [operator.address, WRITABLE_SIGNER],
      [issuer.credential.address, WRITABLE],
      [issuer.attestationSchema.address, WRITABLE],
      [issuer.batchSchema.address, WRITABLE],
      [programData.address, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
    assert.deepEqual(
      instruction.data,
      Uint8Array.of(
        0,
        issuer.credential.bump,
        issuer.attestationSchema.bump,
        issuer.batchSchema.bump,
        programData.bump,
      ),
    );
  });
});

describe("register_agent instruction", () => {
  it("has the operator paying, the agent signing read-only, and the agent account writable", async () => {
    const instruction = await buildRegisterAgentInstruction({
      programId: PROGRAM_ID,
      operator,
      agent: agentSigner,
      allowedActionTypes: 0b0011,
    });
    const account = await deriveAgentAddress(PROGRAM_ID, agentSigner.address);
    assert.deepEqual(accountsOf(instruction), [
      [operator.address, WRITABLE_SIGNER],
      [agentSigner.address, READONLY_SIGNER],
      [account.address, WRITABLE],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
    assert.deepEqual(instruction.data, Uint8Array.of(1, account.bump, 0b0011));
  });

  it("carries both signers, so kit signs the transaction with both keys", async () => {
    // Given a register_agent transaction paid by the operator
    const instruction = await buildRegisterAgentInstruction({
      programId: PROGRAM_ID,
      operator,
      agent: agentSigner,
      allowedActionTypes: 1,
    });
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(operator, m),
      (m) =>
        setTransactionMessageLifetimeUsingBlockhash(
          { blockhash: blockhash("11111111111111111111111111111111"), lastValidBlockHeight: 0n },
          m,
        ),
      (m) => appendTransactionMessageInstructions([instruction], m),
    );
    // When kit signs it with the signers found in the instruction
    const transaction = await signTransactionMessageWithSigners(message);
    // Then both the operator and the agent signed
    assert.ok(transaction.signatures[operator.address]);
    assert.ok(transaction.signatures[agentSigner.address]);
    const signerOfAgent = instruction.accounts.find((account) => account.address === agentSigner.address);
    assert.equal((signerOfAgent as AccountSignerMeta).signer, agentSigner);
  });

  it("refuses a policy outside 1..=15 before deriving anything", async () => {
    for (const allowedActionTypes of [0, 16, 3.5]) {
      await assertRejectsAbasError(
        () =>
          buildRegisterAgentInstruction({
            programId: PROGRAM_ID,
            operator,
            agent: agentSigner,
            allowedActionTypes,
          }),
        ABAS_SDK__INVALID_ACTION_TYPE_MASK,
      );
    }
  });
});

describe("update_agent instruction", () => {
  it("has the operator signing read-only and the agent account writable", async () => {
    const instruction = await buildUpdateAgentInstruction({
      programId: PROGRAM_ID,
      operator,
      agent: AGENT,
      status: AgentStatus.Suspended,
      allowedActionTypes: 15,
    });
    assert.deepEqual(accountsOf(instruction), [
      [operator.address, READONLY_SIGNER],
      [agentAccount.address, WRITABLE],
    ]);
    assert.deepEqual(instruction.data, Uint8Array.of(2, 1, 15));
  });

  it("refuses a status above 2 and a policy outside 1..=15", async () => {
    const valid = {
      programId: PROGRAM_ID,
      operator,
      agent: AGENT,
      status: AgentStatus.Active,
      allowedActionTypes: 1,
    };
    await assertRejectsAbasError(
      () => buildUpdateAgentInstruction({ ...valid, status: 3 as AgentStatus }),
      ABAS_SDK__INVALID_AGENT_STATUS,
    );
    await assertRejectsAbasError(
      () => buildUpdateAgentInstruction({ ...valid, allowedActionTypes: 0 }),
      ABAS_SDK__INVALID_ACTION_TYPE_MASK,
    );
  });
});

describe("attest instruction", () => {
  const valid = {
    programId: PROGRAM_ID,
    operator,
    agent: AGENT,
    actionType: ActionType.ModelInvocation,
    privacyMode: true,
    storedHash: STORED_HASH,
  };

  it("has the accounts in the program's order with their roles, and the attestation bump", async () => {
    const instruction = await buildAttestInstruction(valid);
    const attestation = await deriveAttestationAddress(PROGRAM_ID, AGENT, STORED_HASH);
    assert.deepEqual(accountsOf(instruction), [
      [operator.address, WRITABLE_SIGNER],
      [agentAccount.address, WRITABLE],
      [attestation.address, WRITABLE],
      [issuer.credential.address, READONLY],
      [issuer.attestationSchema.address, READONLY],
      [INSTRUCTIONS_SYSVAR_ADDRESS, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
    assert.deepEqual(instruction.data, Uint8Array.of(3, 3, 1, attestation.bump, ...STORED_HASH));
  });

  it("refuses an invalid action type, privacy flag or hash", async () => {
    await assertRejectsAbasError(
      () => buildAttestInstruction({ ...valid, actionType: 4 as ActionType }),
      ABAS_SDK__INVALID_ACTION_TYPE,
    );
    await assertRejectsAbasError(
      () => buildAttestInstruction({ ...valid, privacyMode: 0 as unknown as boolean }),
      ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
    );
    await assertRejectsAbasError(
      () => buildAttestInstruction({ ...valid, storedHash: new Uint8Array(64) }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});

describe("attest_batch instruction", () => {
  const valid = {
    programId: PROGRAM_ID,
    operator,
    agent: AGENT,
    itemCount: 42,
    actionTypes: 0b1001,
    merkleRoot: MERKLE_ROOT,
  };

  it("has the accounts in the program's order with their roles, and the batch bump", async () => {
    const instruction = await buildAttestBatchInstruction(valid);
    const batch = await deriveBatchAddress(PROGRAM_ID, AGENT, MERKLE_ROOT);
    assert.deepEqual(accountsOf(instruction), [
      [operator.address, WRITABLE_SIGNER],
      [agentAccount.address, WRITABLE],
      [batch.address, WRITABLE],
      [issuer.credential.address, READONLY],
      [issuer.batchSchema.address, READONLY],
      [INSTRUCTIONS_SYSVAR_ADDRESS, READONLY],
      [SYSTEM_PROGRAM_ADDRESS, READONLY],
    ]);
    assert.deepEqual(instruction.data, Uint8Array.of(4, 42, 0b1001, batch.bump, ...MERKLE_ROOT));
  });

  it("refuses an item count outside 1..=100, a mask outside 1..=15 and a short root", async () => {
    for (const itemCount of [0, 101]) {
      await assertRejectsAbasError(
        () => buildAttestBatchInstruction({ ...valid, itemCount }),
        ABAS_SDK__INVALID_BATCH_SIZE,
      );
    }
    await assertRejectsAbasError(
      () => buildAttestBatchInstruction({ ...valid, actionTypes: 16 }),
      ABAS_SDK__INVALID_ACTION_TYPE_MASK,
    );
    await assertRejectsAbasError(
      () => buildAttestBatchInstruction({ ...valid, merkleRoot: MERKLE_ROOT.slice(1) }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});

describe("publish_batch_leaves instruction", () => {
  const leaves: LeafData[] = [
    { actionType: ActionType.Transaction, privacyMode: false, storedHash: STORED_HASH },
    { actionType: ActionType.Decision, privacyMode: true, storedHash: MERKLE_ROOT },
  ];
  const valid = {
    programId: PROGRAM_ID,
    operator,
    agent: AGENT,
    merkleRoot: MERKLE_ROOT,
    startIndex: 98,
    leaves,
  };

  it("has the operator signing and writable (it gets the frontier's rent back), the batch writable", async () => {
    const instruction = await buildPublishBatchLeavesInstruction(valid);
    const batch = await deriveBatchAddress(PROGRAM_ID, AGENT, MERKLE_ROOT);
    assert.deepEqual(accountsOf(instruction), [
      [operator.address, WRITABLE_SIGNER],
      [batch.address, WRITABLE],
      [issuer.batchSchema.address, READONLY],
    ]);
    assert.deepEqual(instruction.data, Uint8Array.of(5, 98, 2, 0, 0, ...STORED_HASH, 2, 1, ...MERKLE_ROOT));
  });

  it("refuses an empty chunk or more leaves than a batch holds", async () => {
    await assertRejectsAbasError(
      () => buildPublishBatchLeavesInstruction({ ...valid, leaves: [] }),
      ABAS_SDK__INVALID_LEAF_COUNT,
    );
    await assertRejectsAbasError(
      () =>
        buildPublishBatchLeavesInstruction({ ...valid, startIndex: 0, leaves: Array(101).fill(leaves[0]) }),
      ABAS_SDK__INVALID_LEAF_COUNT,
    );
  });

  it("refuses a chunk that starts before 0 or ends past item 100", async () => {
    for (const startIndex of [-1, 99, 1.5]) {
      await assertRejectsAbasError(
        () => buildPublishBatchLeavesInstruction({ ...valid, startIndex }),
        ABAS_SDK__INVALID_LEAF_START_INDEX,
      );
    }
  });

  it("refuses an invalid leaf", async () => {
    await assertRejectsAbasError(
      () =>
        buildPublishBatchLeavesInstruction({
          ...valid,
          leaves: [{ actionType: 7 as ActionType, privacyMode: false, storedHash: STORED_HASH }],
        }),
      ABAS_SDK__INVALID_ACTION_TYPE,
    );
    await assertRejectsAbasError(
      () =>
        buildPublishBatchLeavesInstruction({
          ...valid,
          leaves: [
            {
              actionType: ActionType.ToolCall,
              privacyMode: 1 as unknown as boolean,
              storedHash: STORED_HASH,
            },
          ],
        }),
      ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
    );
  });
});
