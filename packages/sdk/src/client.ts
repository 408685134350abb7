import type { Address } from "@solana/kit";

import { fetchAgentAccount } from "./agent-registration.js";
import { attest, type AttestInput } from "./attest.js";
import { batchAttest, type BatchAttestInput } from "./batch-attest.js";
import { canonicalize } from "./canonicalize.js";
import type { AttestationClientConfig, ResolvedClientSettings } from "./client-config.js";
import { createClientContext, type ClientContext } from "./client-context.js";
import { completeBatch, type CompleteBatchInput, type CompleteBatchResult } from "./complete-batch.js";
import {
  findAttestation,
  findBatch,
  type FindAttestationInput,
  type FindBatchInput,
} from "./find-attestation.js";
import { hashAction } from "./hash-action.js";
import { parseAddress } from "./input-validation.js";
import type { AttestationReceipt, BatchAttestationResult, Receipt } from "./receipts.js";
import { toAgentRecord, type AgentRecord, type AttestationRecord, type BatchRecord } from "./records.js";
import { registerAgent, type AgentTransactionResult, type RegisterAgentInput } from "./register-agent.js";
import { updateAgent, type UpdateAgentInput, type UpdateAgentResult } from "./update-agent.js";
import { verifyReceiptOnLedger, type ReceiptVerification } from "./verify-receipt.js";

/**
 * The ABAS client of one agent. Every operation checks its input before it signs or sends
 * anything, and throws an `AbasError` whose code names what went wrong (see `@abas/errors`).
 *
 * ```ts
 * const client = new AttestationClient({ rpcUrl: "http://127.0.0.1:8899", agentKeypair: "./agent.json" });
 * const actionHash = await AttestationClient.hashAction(AttestationClient.canonicalize(action));
 * const receipt = await client.attest({ operatorKeypair, actionHash, actionType: "ToolCall" });
 * ```
 */
export class AttestationClient {
  readonly #context: ClientContext;

  /** Checks the whole configuration, the agent's key included, without touching the network. */
  constructor(config: AttestationClientConfig) {
    this.#context = createClientContext(config);
  }

  /** SHA-256 of the payload string's UTF-8 bytes, as 64 lowercase hex characters. */
  static async hashAction(payload: string): Promise<string> {
    return await hashAction(payload);
  }

  /**
   * RFC 8785 canonical JSON of a payload object, so that the same object always hashes the same.
   * `hashAction(JSON.stringify(x))` depends on the order in which `x`'s keys were written;
   * `hashAction(canonicalize(x))` does not.
   */
  static canonicalize(value: unknown): string {
    return canonicalize(value);
  }

  /** The agent's public key. */
  get agentAddress(): Address {
    return this.#context.agent.address;
  }

  get programId(): Address {
    return this.#context.settings.programId;
  }

  /** The configuration with its defaults filled in. */
  get settings(): ResolvedClientSettings {
    return this.#context.settings;
  }

  /** Registers the agent under `operatorKeypair` (both keys sign); by default every action type is allowed. */
  async registerAgent(input: RegisterAgentInput): Promise<AgentTransactionResult> {
    return await registerAgent(this.#context, input);
  }

  /** Suspends, reactivates or revokes (for good) the agent, and optionally changes its allowed action types. */
  async updateAgent(input: UpdateAgentInput): Promise<UpdateAgentResult> {
    return await updateAgent(this.#context, input);
  }

  /** The agent's registration, status, policy and counters; null when it is not registered. */
  async getAgent(agent?: string): Promise<AgentRecord | null> {
    const agentAddress = agent === undefined ? this.agentAddress : parseAddress(agent, "agent");
    const found = await fetchAgentAccount(this.#context, agentAddress);
    return found === null ? null : toAgentRecord(found.address, found.account);
  }

  /** Records one action in one transaction and returns its receipt. */
  async attest(input: AttestInput): Promise<AttestationReceipt> {
    return await attest(this.#context, input);
  }

  /** Records 1 to 100 actions under one signed Merkle root, then publishes their leaves. */
  async batchAttest(input: BatchAttestInput): Promise<BatchAttestationResult> {
    return await batchAttest(this.#context, input);
  }

  /** Publishes the leaves a batch still lacks, from its receipts. */
  async completeBatch(input: CompleteBatchInput): Promise<CompleteBatchResult> {
    return await completeBatch(this.#context, input);
  }

  /** Checks a receipt offline and against the ledger; never throws for a bad receipt, reports it. */
  async verifyReceipt(receipt: Receipt): Promise<ReceiptVerification> {
    const { commitment, programId } = this.#context.settings;
    return await verifyReceiptOnLedger(this.#context.rpc, commitment, programId, receipt);
  }

  /** The single attestation of an action hash (with the salt, of a privacy-mode one), or null. */
  async findAttestation(input: FindAttestationInput): Promise<AttestationRecord | null> {
    return await findAttestation(this.#context, input);
  }

  /** The batch attestation with a Merkle root, or null. */
  async findBatch(input: FindBatchInput): Promise<BatchRecord | null> {
    return await findBatch(this.#context, input);
  }
}
