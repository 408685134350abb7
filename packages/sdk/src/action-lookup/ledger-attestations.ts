/**
 * The program's attestation and batch accounts, read from the ledger over RPC, a batch with the
 * leaves its `publish_batch_leaves` transactions put on the ledger (`readPublishedLeaves`).
 */
import {
  ATTESTATION_ACCOUNT_SIZE,
  AccountDiscriminator,
  decodeAttestationAccount,
  decodeBatchAccount,
  type AttestationAccount,
  type BatchAccount,
  type LeafData,
} from "@abas/program-client";
import { getBase64Encoder, type Address } from "@solana/kit";

import { readPublishedLeaves } from "../batch-leaves.js";
import { sendRpcRequest } from "../rpc-request.js";
import type { LookupContext } from "./lookup-context.js";

export type LedgerAttestation =
  | Readonly<{ kind: "attestation"; address: Address; account: AttestationAccount }>
  | Readonly<{
      kind: "batch";
      address: Address;
      account: BatchAccount;
      /** The published leaves, `leaves[i]` being item `i`. */
      leaves: readonly LeafData[];
    }>;

type RawAccount = Readonly<{ owner: Address; data: readonly [string, string] }> | null;

type DecodedAccount =
  | Readonly<{ kind: "attestation"; address: Address; account: AttestationAccount }>
  | Readonly<{ kind: "batch"; address: Address; account: BatchAccount }>;

function decode(context: LookupContext, address: Address, raw: RawAccount): DecodedAccount | null {
  if (raw === null || raw.owner !== context.programId) return null;
  const data = Uint8Array.from(getBase64Encoder().encode(raw.data[0]));
  if (data[0] !== AccountDiscriminator.Attestation) return null;
  try {
    return data.length === ATTESTATION_ACCOUNT_SIZE
      ? { kind: "attestation", address, account: decodeAttestationAccount(data) }
      : { kind: "batch", address, account: decodeBatchAccount(data) };
  } catch {
    return null;
  }
}

async function withLeaves(context: LookupContext, decoded: DecodedAccount): Promise<LedgerAttestation> {
  if (decoded.kind === "attestation") return decoded;
  const leaves = await readPublishedLeaves(context.rpc, {
    programId: context.programId,
    batchAddress: decoded.address,
    commitment: context.commitment,
    account: decoded.account,
    ...(context.abortSignal === undefined ? {} : { abortSignal: context.abortSignal }),
  });
  return { ...decoded, leaves };
}

/** The program's attestation and batch accounts among `addresses`, by address (one accounts request). */
export async function readLedgerAttestations(
  context: LookupContext,
  addresses: readonly Address[],
): Promise<Map<Address, LedgerAttestation>> {
  const found = new Map<Address, LedgerAttestation>();
  const unique = [...new Set(addresses)];
  if (unique.length === 0) return found;
  const { value } = await sendRpcRequest(
    "getMultipleAccounts",
    context.rpc.getMultipleAccounts(unique, { encoding: "base64", commitment: context.commitment }),
    context.abortSignal,
  );
  for (const [i, address] of unique.entries()) {
    const decoded = decode(context, address, value[i] ?? null);
    if (decoded !== null) found.set(address, await withLeaves(context, decoded));
  }
  return found;
}

export async function readLedgerAttestation(
  context: LookupContext,
  address: Address,
): Promise<LedgerAttestation | null> {
  return (await readLedgerAttestations(context, [address])).get(address) ?? null;
}
