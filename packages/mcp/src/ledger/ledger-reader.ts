/**
 * Reads from the ledger's JSON-RPC node, and decodes the ABAS program's attestation accounts (with a
 * batch's published leaves, read from its transactions by the SDK). Every call has a timeout, and
 * every failure becomes a ToolFailure that names ABAS_RPC_URL.
 */
import {
  ATTESTATION_ACCOUNT_SIZE,
  AccountDiscriminator,
  decodeAgentAccount,
  decodeAttestationAccount,
  decodeBatchAccount,
  deriveAgentAddress,
  type AgentAccount,
  type AttestationAccount,
  type BatchAccount,
  type LeafData,
} from "@abas/program-client";
import { readPublishedLeaves } from "@abas/sdk";
import {
  createSolanaRpc,
  getBase64Encoder,
  type Address,
  type Rpc,
  type Signature,
  type SolanaRpcApi,
} from "@solana/kit";

import type { McpServerConfig } from "../config.js";
import { ledgerFailure } from "../tool-failure.js";

export const RPC_TIMEOUT_MS = 10_000;
const COMMITMENT = "confirmed";

export type DecodedAttestation =
  | Readonly<{ kind: "single"; address: Address; account: AttestationAccount }>
  | Readonly<{
      kind: "batch";
      address: Address;
      account: BatchAccount;
      /** The published leaves, from the batch's `publish_batch_leaves` transactions. */
      leaves: readonly LeafData[];
    }>;

type DecodedAccount =
  | Readonly<{ kind: "single"; address: Address; account: AttestationAccount }>
  | Readonly<{ kind: "batch"; address: Address; account: BatchAccount }>;

export type LedgerTransaction = Readonly<{
  signature: Signature;
  slot: number;
  succeeded: boolean;
  accountKeys: Address[];
}>;

export type AddressSignature = Readonly<{ signature: Signature; slot: number; succeeded: boolean }>;

type RawAccount = Readonly<{ owner: Address; data: readonly [string, string] }> | null;

interface PendingRequest<T> {
  send(options?: { abortSignal?: AbortSignal }): Promise<T>;
}

export class LedgerReader {
  readonly #rpc: Rpc<SolanaRpcApi>;
  readonly #config: McpServerConfig;

  constructor(config: McpServerConfig) {
    this.#config = config;
    this.#rpc = createSolanaRpc(config.rpcUrl);
  }

  get programId(): Address {
    return this.#config.programId;
  }

  async #call<T>(method: string, request: PendingRequest<T>): Promise<T> {
    try {
      return await request.send({ abortSignal: AbortSignal.timeout(RPC_TIMEOUT_MS) });
    } catch (error) {
      throw ledgerFailure(this.#config, method, error);
    }
  }

  /** The program's attestation or batch account at `address`, or null when there is none. */
  async getAttestation(address: Address): Promise<DecodedAttestation | null> {
    const { value } = await this.#call(
      "getAccountInfo",
      this.#rpc.getAccountInfo(address, { encoding: "base64", commitment: COMMITMENT }),
    );
    const decoded = this.#decodeAttestation(address, value);
    return decoded === null ? null : await this.#withLeaves(decoded);
  }

  /** The program's attestation and batch accounts among `addresses` (one request). */
  async getAttestations(addresses: readonly Address[]): Promise<DecodedAttestation[]> {
    if (addresses.length === 0) return [];
    const { value } = await this.#call(
      "getMultipleAccounts",
      this.#rpc.getMultipleAccounts([...addresses], { encoding: "base64", commitment: COMMITMENT }),
    );
    const decoded = value
      .map((account, i) => this.#decodeAttestation(addresses[i]!, account))
      .filter((entry): entry is DecodedAccount => entry !== null);
    return await Promise.all(decoded.map((entry) => this.#withLeaves(entry)));
  }

  async #withLeaves(decoded: DecodedAccount): Promise<DecodedAttestation> {
    if (decoded.kind === "single") return decoded;
    try {
      const leaves = await readPublishedLeaves(this.#rpc, {
        programId: this.programId,
        batchAddress: decoded.address,
        account: decoded.account,
        commitment: COMMITMENT,
        abortSignal: AbortSignal.timeout(RPC_TIMEOUT_MS),
      });
      return { ...decoded, leaves };
    } catch (error) {
      throw ledgerFailure(this.#config, "getSignaturesForAddress/getTransaction", error);
    }
  }

  /** The agent's registration (status, policy, operator), or null when the key was never registered. */
  async getAgent(agent: Address): Promise<AgentAccount | null> {
    const { address } = await deriveAgentAddress(this.programId, agent);
    const { value } = await this.#call(
      "getAccountInfo",
      this.#rpc.getAccountInfo(address, { encoding: "base64", commitment: COMMITMENT }),
    );
    if (value === null || value.owner !== this.programId) return null;
    try {
      return decodeAgentAccount(accountBytes(value.data));
    } catch {
      return null;
    }
  }

  async getTransaction(signature: Signature): Promise<LedgerTransaction | null> {
    const found = await this.#call(
      "getTransaction",
      this.#rpc.getTransaction(signature, {
        encoding: "json",
        maxSupportedTransactionVersion: 0,
        commitment: COMMITMENT,
      }),
    );
    if (found === null) return null;
    return {
      signature,
      slot: Number(found.slot),
      succeeded: found.meta !== null && found.meta.err === null,
      accountKeys: [...found.transaction.message.accountKeys],
    };
  }

  /** The transactions that touched `address`, newest first (at most 1,000). */
  async getSignatures(address: Address): Promise<AddressSignature[]> {
    const entries = await this.#call(
      "getSignaturesForAddress",
      this.#rpc.getSignaturesForAddress(address, { commitment: COMMITMENT, limit: 1000 }),
    );
    return entries.map((entry) => ({
      signature: entry.signature,
      slot: Number(entry.slot),
      succeeded: entry.err === null,
    }));
  }

  #decodeAttestation(address: Address, account: RawAccount): DecodedAccount | null {
    if (account === null || account.owner !== this.programId) return null;
    const data = accountBytes(account.data);
    if (data[0] !== AccountDiscriminator.Attestation) return null;
    try {
      return data.length === ATTESTATION_ACCOUNT_SIZE
        ? { kind: "single", address, account: decodeAttestationAccount(data) }
        : { kind: "batch", address, account: decodeBatchAccount(data) };
    } catch {
      return null;
    }
  }
}

function accountBytes(data: readonly [string, string]): Uint8Array {
  return Uint8Array.from(getBase64Encoder().encode(data[0]));
}
