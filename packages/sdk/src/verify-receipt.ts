/**
 * Verification of a receipt, by anyone, from the receipt and the ledger alone:
 *
 * offline  `format`          every field is present and well formed
 *          `storedHash`      normal mode: the stored hash is the action hash; privacy mode: it is
 *                            `H("abas:commit:v1" ‖ salt ‖ actionHash)`
 *          `agentSignature`  the agent's Ed25519 signature verifies over the exact message the
 *                            program checked (attest message, or batch message over the root)
 *          `merkleProof`     batch items: the leaf hash is the item's, and the proof links it to
 *                            the signed root
 *          `address`         the account address is the PDA of (program, agent, stored hash or root)
 * trust    `program`         the receipt names the ABAS program the verifier trusts (its
 *                            `programId`): a copy of the program deployed elsewhere keeps its own
 *                            agents (a key the real one revoked, say) and, modified, writes any time
 * ledger   `account`         an account exists there, owned by the program, in the expected layout
 *          `accountFields`   its fields are the receipt's (hash, type, mode, agent, operator,
 *                            signature, slot, timestamp, the program's Credential and Schema)
 *          `batchLeaf`       batch items: the batch is complete, so the program checked that the
 *                            leaves published on the ledger reproduce the signed root; with the
 *                            proof, the published leaf at this index is this item
 *          `transaction`     the receipt's transaction exists, succeeded, wrote that account, and
 *                            landed in the recorded slot
 *
 * A receipt is valid when every check passes.
 */
import {
  buildAttestMessage,
  buildBatchMessage,
  bytesToHex,
  computeCommitment,
  computeLeafHash,
  decodeAttestationAccount,
  decodeBatchAccount,
  decodeProgramInstructions,
  deriveAttestationAddress,
  deriveBatchAddress,
  deriveIssuerAddresses,
  getActionTypeName,
  isActionTypeAllowed,
  MalformedTransactionError,
  verifyInclusionProof,
  type AttestationAccount,
  type BatchAccount,
  type ProgramInstruction,
  type TransactionJsonResponse,
} from "@abas/program-client";
import {
  getPublicKeyFromAddress,
  signatureBytes,
  verifySignature,
  type Address,
  type Commitment,
  type ReadonlyUint8Array,
  type Rpc,
  type SolanaRpcApi,
} from "@solana/kit";

import { parseCommitment, parseProgramId, parseRpcUrl } from "./client-config.js";
import { historyCommitment } from "./history-commitment.js";
import { fetchLedgerAccount } from "./ledger-accounts.js";
import {
  parseReceipt,
  type ParsedBatchItemReceipt,
  type ParsedReceipt,
  type ReceiptParseResult,
} from "./parse-receipt.js";
import type { Receipt } from "./receipts.js";
import { createTimedSolanaRpc, DEFAULT_REQUEST_TIMEOUT_MS } from "./rpc-transport.js";
import {
  signatureToBase58,
  toAttestationRecord,
  toBatchRecord,
  type AttestationRecord,
  type BatchRecord,
} from "./records.js";
import { sendRpcRequest } from "./rpc-request.js";

export type ReceiptCheckName =
  | "format"
  | "storedHash"
  | "agentSignature"
  | "merkleProof"
  | "address"
  | "program"
  | "account"
  | "accountFields"
  | "batchLeaf"
  | "transaction";

export type ReceiptCheck = Readonly<{ ok: boolean; reason?: string }>;

/** The checks that apply to the receipt's kind: `merkleProof` and `batchLeaf` only for batch items. */
export type ReceiptChecks = { [Name in ReceiptCheckName]?: ReceiptCheck };

export type ReceiptKind = "attestation" | "batch-item";

export type OfflineReceiptVerification = Readonly<{
  valid: boolean;
  kind: ReceiptKind | undefined;
  checks: ReceiptChecks;
}>;

export type OnChainTransaction = Readonly<{
  signature: string;
  slot: number;
  /** Unix seconds, as the node reports the block's time; null when it does not know it. */
  blockTime: number | null;
  succeeded: boolean;
}>;

export type ReceiptVerification = OfflineReceiptVerification &
  Readonly<{
    onChain: Readonly<{
      /** What the ledger holds at the receipt's address, when the program's account is there. */
      account: AttestationRecord | BatchRecord | null;
      transaction: OnChainTransaction | null;
    }>;
  }>;

const OFFLINE_CHECKS: readonly ReceiptCheckName[] = [
  "storedHash",
  "agentSignature",
  "merkleProof",
  "address",
];
const LEDGER_CHECKS: readonly ReceiptCheckName[] = [
  "program",
  "account",
  "accountFields",
  "batchLeaf",
  "transaction",
];
const BATCH_ONLY_CHECKS: readonly ReceiptCheckName[] = ["merkleProof", "batchLeaf"];

const pass: ReceiptCheck = { ok: true };
const fail = (reason: string): ReceiptCheck => ({ ok: false, reason });

const bytesEqual = (a: ReadonlyUint8Array, b: ReadonlyUint8Array): boolean =>
  a.length === b.length && a.every((byte, i) => byte === b[i]);

function checksFor(kind: ReceiptKind | undefined, names: readonly ReceiptCheckName[]): ReceiptCheckName[] {
  return names.filter((name) => kind === "batch-item" || !BATCH_ONLY_CHECKS.includes(name));
}

function checkStoredHash(receipt: ParsedReceipt): ReceiptCheck {
  if (!receipt.privacyMode) {
    return bytesEqual(receipt.storedHash, receipt.actionHash)
      ? pass
      : fail("in normal mode the stored hash must be the action hash");
  }
  return bytesEqual(computeCommitment(receipt.salt!, receipt.actionHash), receipt.storedHash)
    ? pass
    : fail("the stored hash is not the commitment of the action hash under the salt");
}

function signedMessage(receipt: ParsedReceipt): Uint8Array {
  const { programId, agent } = receipt;
  return receipt.kind === "attestation"
    ? buildAttestMessage({
        programId,
        agent,
        actionType: receipt.actionType,
        privacyMode: receipt.privacyMode,
        storedHash: receipt.storedHash,
      })
    : buildBatchMessage({
        programId,
        agent,
        itemCount: receipt.itemCount,
        actionTypes: receipt.batchActionTypes,
        merkleRoot: receipt.merkleRoot,
      });
}

async function checkAgentSignature(receipt: ParsedReceipt): Promise<ReceiptCheck> {
  const publicKey = await getPublicKeyFromAddress(receipt.agent);
  const verified = await verifySignature(
    publicKey,
    signatureBytes(receipt.agentSignature),
    signedMessage(receipt),
  );
  return verified
    ? pass
    : fail(
        `the signature does not verify for agent ${receipt.agent} over the ${receipt.kind === "attestation" ? "attest" : "batch"} message`,
      );
}

function checkMerkleProof(receipt: ParsedBatchItemReceipt): ReceiptCheck {
  if (!isActionTypeAllowed(receipt.batchActionTypes, receipt.actionType)) {
    return fail("the item's action type is not one of the batch's action types");
  }
  const leafHash = computeLeafHash(receipt);
  if (!bytesEqual(leafHash, receipt.leafHash)) return fail("the leaf hash is not the hash of this item");
  const included = verifyInclusionProof({
    leafHash,
    index: receipt.index,
    itemCount: receipt.itemCount,
    proof: receipt.proof,
    root: receipt.merkleRoot,
  });
  return included ? pass : fail(`the proof does not link item ${receipt.index + 1} to the Merkle root`);
}

async function checkAddress(receipt: ParsedReceipt): Promise<ReceiptCheck> {
  const { address } =
    receipt.kind === "attestation"
      ? await deriveAttestationAddress(receipt.programId, receipt.agent, receipt.storedHash)
      : await deriveBatchAddress(receipt.programId, receipt.agent, receipt.merkleRoot);
  return address === receipt.address ? pass : fail(`the account of this receipt is at ${address}`);
}

async function runOfflineChecks(receipt: ParsedReceipt): Promise<ReceiptChecks> {
  return {
    format: pass,
    storedHash: checkStoredHash(receipt),
    agentSignature: await checkAgentSignature(receipt),
    ...(receipt.kind === "batch-item" ? { merkleProof: checkMerkleProof(receipt) } : {}),
    address: await checkAddress(receipt),
  };
}

function notChecked(
  kind: ReceiptKind | undefined,
  names: readonly ReceiptCheckName[],
  reason: string,
): ReceiptChecks {
  return Object.fromEntries(checksFor(kind, names).map((name) => [name, fail(`not checked: ${reason}`)]));
}

const isValid = (checks: ReceiptChecks): boolean => Object.values(checks).every((check) => check.ok);

function offlineVerification(
  parsed: ReceiptParseResult,
): Promise<OfflineReceiptVerification> | OfflineReceiptVerification {
  if (!parsed.ok) {
    const checks = {
      format: fail(parsed.problems.join("; ")),
      ...notChecked(parsed.kind, OFFLINE_CHECKS, "the receipt is malformed"),
    };
    return { valid: false, kind: parsed.kind, checks };
  }
  return runOfflineChecks(parsed.receipt).then((checks) => ({
    valid: isValid(checks),
    kind: parsed.receipt.kind,
    checks,
  }));
}

/** The checks that need no network: format, stored hash, agent signature, Merkle proof, address. */
export async function verifyReceiptOffline(receipt: Receipt | unknown): Promise<OfflineReceiptVerification> {
  return await offlineVerification(parseReceipt(receipt));
}

type FieldComparison = readonly [
  field: string,
  receiptValue: string | number | boolean,
  ledgerValue: string | number | boolean,
];

function compareFields(comparisons: readonly FieldComparison[]): ReceiptCheck {
  const mismatches = comparisons
    .filter(([, receiptValue, ledgerValue]) => receiptValue !== ledgerValue)
    .map(([field, receiptValue, ledgerValue]) => `${field}: receipt ${receiptValue}, ledger ${ledgerValue}`);
  return mismatches.length === 0 ? pass : fail(mismatches.join("; "));
}

type DecodedLedgerAccount =
  | Readonly<{ kind: "attestation"; account: AttestationAccount }>
  | Readonly<{ kind: "batch-item"; account: BatchAccount }>;

function commonFieldComparisons(
  receipt: ParsedReceipt,
  account: AttestationAccount | BatchAccount,
  issuer: { credential: Address; schema: Address },
): FieldComparison[] {
  return [
    ["agent", receipt.agent, account.signer],
    ["operator", receipt.operator, account.operator],
    ["agentSignature", signatureToBase58(receipt.agentSignature), signatureToBase58(account.agentSignature)],
    ["slot", receipt.slot, Number(account.slot)],
    ["timestamp", receipt.timestamp, Number(account.timestamp)],
    ["credential", issuer.credential, account.credential],
    ["schema", issuer.schema, account.schema],
  ];
}

async function checkAccountFields(
  receipt: ParsedReceipt,
  decoded: DecodedLedgerAccount,
): Promise<ReceiptCheck> {
  const issuer = await deriveIssuerAddresses(receipt.programId);
  if (decoded.kind === "attestation" && receipt.kind === "attestation") {
    const { account } = decoded;
    return compareFields([
      ["storedHash", bytesToHex(receipt.storedHash), bytesToHex(account.storedHash)],
      ["actionType", getActionTypeName(receipt.actionType), getActionTypeName(account.actionType)],
      ["privacyMode", receipt.privacyMode, account.privacyMode],
      ...commonFieldComparisons(receipt, account, {
        credential: issuer.credential.address,
        schema: issuer.attestationSchema.address,
      }),
    ]);
  }
  if (decoded.kind === "batch-item" && receipt.kind === "batch-item") {
    const { account } = decoded;
    return compareFields([
      ["merkleRoot", bytesToHex(receipt.merkleRoot), bytesToHex(account.merkleRoot)],
      ["itemCount", receipt.itemCount, account.itemCount],
      ["batchActionTypes", receipt.batchActionTypes, account.actionTypes],
      ...commonFieldComparisons(receipt, account, {
        credential: issuer.credential.address,
        schema: issuer.batchSchema.address,
      }),
    ]);
  }
  return fail("the account is not of the receipt's kind");
}

function checkBatchLeaf(account: BatchAccount): ReceiptCheck {
  return account.isComplete
    ? pass
    : fail(`only ${account.leavesPublished} of the batch's ${account.itemCount} leaves are published`);
}

function decodeLedgerAccount(kind: ReceiptKind, data: Uint8Array): DecodedLedgerAccount {
  return kind === "attestation"
    ? { kind, account: decodeAttestationAccount(data) }
    : { kind, account: decodeBatchAccount(data) };
}

/** The instruction that creates a receipt's account, and that account's name among its accounts. */
const CREATING_INSTRUCTION = {
  attestation: { name: "attest", account: "attestation" },
  "batch-item": { name: "attest_batch", account: "batch" },
} as const satisfies Record<ReceiptKind, { name: ProgramInstruction["name"]; account: string }>;

/**
 * Whether the transaction ran the instruction that creates the receipt's account: naming the
 * program and the account is not enough, since another transaction of the same slot may (the
 * batch's leaves, or anyone's, listing them).
 */
function createsReceiptAccount(found: TransactionJsonResponse, receipt: ParsedReceipt): boolean {
  const { name, account } = CREATING_INSTRUCTION[receipt.kind];
  let instructions: ProgramInstruction[];
  try {
    instructions = decodeProgramInstructions(found, receipt.programId);
  } catch (error) {
    if (error instanceof MalformedTransactionError) return false;
    throw error;
  }
  return instructions.some(
    (instruction) => instruction.name === name && instruction.namedAccounts[account] === receipt.address,
  );
}

async function checkTransaction(
  rpc: Rpc<SolanaRpcApi>,
  receipt: ParsedReceipt,
  commitment: Commitment,
): Promise<{ check: ReceiptCheck; transaction: OnChainTransaction | null }> {
  const found = await sendRpcRequest(
    "getTransaction",
    rpc.getTransaction(receipt.txSignature, {
      encoding: "json",
      maxSupportedTransactionVersion: 0,
      commitment: historyCommitment(commitment),
    }),
  );
  if (found === null)
    return { check: fail(`the ledger has no transaction ${receipt.txSignature}`), transaction: null };
  const succeeded = found.meta !== null && found.meta.err === null;
  const transaction: OnChainTransaction = {
    signature: receipt.txSignature,
    slot: Number(found.slot),
    blockTime: found.blockTime === null ? null : Number(found.blockTime),
    succeeded,
  };
  if (!succeeded) return { check: fail("the transaction failed"), transaction };
  if (!createsReceiptAccount(found as unknown as TransactionJsonResponse, receipt)) {
    return {
      check: fail(
        `the transaction has no ${CREATING_INSTRUCTION[receipt.kind].name} instruction of the program that creates this receipt's account`,
      ),
      transaction,
    };
  }
  if (transaction.slot !== receipt.slot) {
    return {
      check: fail(`the transaction landed in slot ${transaction.slot}, not ${receipt.slot}`),
      transaction,
    };
  }
  return { check: pass, transaction };
}

function checkProgram(receipt: ParsedReceipt, trustedProgramId: Address): ReceiptCheck {
  return receipt.programId === trustedProgramId
    ? pass
    : fail(
        `the receipt is of the program ${receipt.programId}, not of ${trustedProgramId}, the ABAS program this verifier trusts`,
      );
}

/** The offline checks, then the ledger's, for receipts of the program `trustedProgramId`: see the module comment. */
export async function verifyReceiptOnLedger(
  rpc: Rpc<SolanaRpcApi>,
  commitment: Commitment,
  trustedProgramId: Address,
  receipt: Receipt | unknown,
): Promise<ReceiptVerification> {
  const parsed = parseReceipt(receipt);
  const offline = await offlineVerification(parsed);
  if (!parsed.ok) {
    const checks = {
      ...offline.checks,
      ...notChecked(offline.kind, LEDGER_CHECKS, "the receipt is malformed"),
    };
    return { valid: false, kind: offline.kind, checks, onChain: { account: null, transaction: null } };
  }
  const { receipt: parsedReceipt } = parsed;
  const { kind, programId, address } = parsedReceipt;
  const checks: ReceiptChecks = { ...offline.checks, program: checkProgram(parsedReceipt, trustedProgramId) };
  let accountRecord: AttestationRecord | BatchRecord | null = null;

  const ledgerAccount = await fetchLedgerAccount(rpc, address, commitment);
  let decoded: DecodedLedgerAccount | undefined;
  if (ledgerAccount === null) {
    checks.account = fail(`the ledger has no account at ${address}`);
  } else if (ledgerAccount.owner !== programId) {
    checks.account = fail(`the account is owned by ${ledgerAccount.owner}, not by the program ${programId}`);
  } else {
    try {
      decoded = decodeLedgerAccount(kind, ledgerAccount.data);
      checks.account = pass;
      accountRecord =
        decoded.kind === "attestation"
          ? toAttestationRecord(address, programId, decoded.account)
          : toBatchRecord(address, programId, decoded.account);
    } catch (error) {
      checks.account = fail(
        `the account is not a ${kind === "attestation" ? "BehaviorAttestation" : "BehaviorBatch"}: ${(error as Error).message}`,
      );
    }
  }
  if (decoded === undefined) {
    Object.assign(checks, notChecked(kind, ["accountFields", "batchLeaf"], "no attestation account"));
  } else {
    checks.accountFields = await checkAccountFields(parsedReceipt, decoded);
    if (parsedReceipt.kind === "batch-item" && decoded.kind === "batch-item") {
      checks.batchLeaf = checkBatchLeaf(decoded.account);
    }
  }
  const { check, transaction } = await checkTransaction(rpc, parsedReceipt, commitment);
  checks.transaction = check;
  return { valid: isValid(checks), kind, checks, onChain: { account: accountRecord, transaction } };
}

export type VerifyReceiptOptions = Readonly<{
  /** Any RPC node of the ledger the receipt was recorded on. */
  rpcUrl: string;
  /**
   * The ABAS program whose receipts are trusted; default `LOCAL_PROGRAM_ID`. A receipt of any
   * other program (its `programId`) fails the `program` check.
   */
  programId?: string;
  /** Default `"confirmed"`. */
  commitment?: Commitment;
}>;

/**
 * Verifies a receipt offline and against the ledger, without any key: what an auditor runs. The
 * same as `AttestationClient.verifyReceipt`.
 */
export async function verifyReceipt(
  receipt: Receipt | unknown,
  { rpcUrl, commitment, programId }: VerifyReceiptOptions,
): Promise<ReceiptVerification> {
  const rpc = createTimedSolanaRpc(parseRpcUrl(rpcUrl), DEFAULT_REQUEST_TIMEOUT_MS);
  return await verifyReceiptOnLedger(rpc, parseCommitment(commitment), parseProgramId(programId), receipt);
}
