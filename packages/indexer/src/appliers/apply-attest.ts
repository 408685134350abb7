import {
  bytesToHex,
  decodeAttestationAccount,
  encodeBase58,
  getActionTypeName,
  type AttestationAccount,
} from "@abas/program-client";

import type { ProgramInstruction } from "../transaction-decoder.js";
import { agentAccountOf, recordAccountOf } from "../transaction-decoder.js";
import { upsertAgentState } from "./agent-state.js";
import { requireAccountData, type ApplyContext } from "./apply-context.js";

/** `attest`: one `attestations` row from the new attestation account, and the agent's new counters. */
export async function applyAttest(context: ApplyContext, instruction: ProgramInstruction): Promise<void> {
  const attestationAddress = recordAccountOf(instruction);
  const data = requireAccountData(context, attestationAddress);
  let account: AttestationAccount;
  try {
    account = decodeAttestationAccount(data);
  } catch (error) {
    context.logger.error(
      { attestationAddress, signature: context.transaction.signature, err: error },
      "attestation account does not decode; skipped",
    );
    return;
  }
  context.attestationRows.push({
    id: attestationAddress!,
    kind: "single",
    agent: account.signer,
    operator: account.operator,
    action_type: getActionTypeName(account.actionType),
    privacy: account.privacyMode ? 1 : 0,
    stored_hash: bytesToHex(account.storedHash),
    agent_signature: encodeBase58(account.agentSignature),
    tx_signature: context.transaction.signature,
    slot: Number(account.slot),
    timestamp: Number(account.timestamp),
    batch_address: null,
    batch_index: null,
    merkle_root: null,
    indexed_at: context.indexedAt,
  });
  await upsertAgentState(context, agentAccountOf(instruction));
}
