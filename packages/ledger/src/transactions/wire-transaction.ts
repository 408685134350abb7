/**
 * Reads a transaction in its wire format (legacy or v0): signatures, header, account keys, recent
 * blockhash, instructions and address table lookups. The ledger needs these pieces itself (for
 * history, balances, fees and JSON rendering); the SVM gets the original bytes.
 */
import type { Address, SignatureBytes, Transaction } from "@solana/kit";

import { BoundedCache } from "../bounded-cache.js";
import { toBase58 } from "../encoding.js";

export interface MessageHeader {
  readonly numRequiredSignatures: number;
  readonly numReadonlySignedAccounts: number;
  readonly numReadonlyUnsignedAccounts: number;
}

export interface CompiledInstruction {
  readonly programIdIndex: number;
  readonly accounts: readonly number[];
  readonly data: Uint8Array;
}

export interface AddressTableLookup {
  readonly accountKey: Address;
  readonly writableIndexes: readonly number[];
  readonly readonlyIndexes: readonly number[];
}

export type TransactionVersion = "legacy" | 0;

export interface WireTransaction {
  readonly bytes: Uint8Array;
  /** The first signature, base58: the transaction's id. */
  readonly signature: string;
  readonly signatures: readonly Uint8Array[];
  readonly messageBytes: Uint8Array;
  readonly version: TransactionVersion;
  readonly header: MessageHeader;
  readonly staticAccountKeys: readonly Address[];
  /** The same keys as bytes, for the SVM's native calls. */
  readonly staticAccountKeyBytes: readonly Uint8Array[];
  readonly recentBlockhash: string;
  readonly instructions: readonly CompiledInstruction[];
  readonly addressTableLookups: readonly AddressTableLookup[];
}

/** Why bytes are not a transaction; the RPC layer reports it as invalid params. */
export class MalformedTransactionError extends Error {
  override readonly name = "MalformedTransactionError";
}

/** Solana's limit on a serialized transaction. */
export const PACKET_DATA_SIZE = 1232;

class ByteReader {
  offset = 0;
  constructor(private readonly bytes: Uint8Array) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  u8(): number {
    if (this.remaining < 1) throw new MalformedTransactionError("unexpected end of transaction bytes");
    return this.bytes[this.offset++]!;
  }

  take(length: number): Uint8Array {
    if (this.remaining < length) throw new MalformedTransactionError("unexpected end of transaction bytes");
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }

  /** The compact-u16 ("short vec") length prefix. */
  shortU16(): number {
    let value = 0;
    for (let i = 0; i < 3; i += 1) {
      const byte = this.u8();
      value |= (byte & 0x7f) << (7 * i);
      if ((byte & 0x80) === 0) return value;
    }
    throw new MalformedTransactionError("invalid compact-u16 length");
  }

  indexes(): number[] {
    const count = this.shortU16();
    return Array.from(this.take(count));
  }
}

/** Account keys and blockhashes recur from transaction to transaction: each is encoded once. */
const base58Of32Bytes = new BoundedCache<string, string>(65_536);

function base58Key(bytes: Uint8Array): string {
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  return base58Of32Bytes.get(key, () => toBase58(bytes));
}

const address = (bytes: Uint8Array): Address => base58Key(bytes) as Address;

export function parseWireTransaction(bytes: Uint8Array): WireTransaction {
  if (bytes.length > PACKET_DATA_SIZE) {
    throw new MalformedTransactionError(
      `transaction is ${bytes.length} bytes, above the ${PACKET_DATA_SIZE}-byte limit`,
    );
  }
  const reader = new ByteReader(bytes);
  const signatureCount = reader.shortU16();
  const signatures = Array.from({ length: signatureCount }, () => reader.take(64));
  const messageStart = reader.offset;

  let version: TransactionVersion = "legacy";
  const first = reader.u8();
  let numRequiredSignatures = first;
  if (first & 0x80) {
    const number = first & 0x7f;
    if (number !== 0) throw new MalformedTransactionError(`unsupported transaction version ${number}`);
    version = 0;
    numRequiredSignatures = reader.u8();
  }
  const header: MessageHeader = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8(),
    numReadonlyUnsignedAccounts: reader.u8(),
  };
  const keyCount = reader.shortU16();
  const staticAccountKeyBytes = Array.from({ length: keyCount }, () => reader.take(32));
  const staticAccountKeys = staticAccountKeyBytes.map(address);
  const recentBlockhash = base58Key(reader.take(32));
  const instructionCount = reader.shortU16();
  const instructions: CompiledInstruction[] = Array.from({ length: instructionCount }, () => {
    const programIdIndex = reader.u8();
    const accounts = reader.indexes();
    const data = reader.take(reader.shortU16());
    return { programIdIndex, accounts, data };
  });
  const addressTableLookups: AddressTableLookup[] = [];
  if (version === 0) {
    const lookupCount = reader.shortU16();
    for (let i = 0; i < lookupCount; i += 1) {
      addressTableLookups.push({
        accountKey: address(reader.take(32)),
        writableIndexes: reader.indexes(),
        readonlyIndexes: reader.indexes(),
      });
    }
  }
  if (reader.remaining !== 0) throw new MalformedTransactionError("trailing bytes after the message");

  const transaction: WireTransaction = {
    bytes,
    signature: signatures[0] === undefined ? "" : toBase58(signatures[0]),
    signatures,
    messageBytes: bytes.subarray(messageStart),
    version,
    header,
    staticAccountKeys,
    staticAccountKeyBytes,
    recentBlockhash,
    instructions,
    addressTableLookups,
  };
  sanitize(transaction);
  return transaction;
}

/** The structural checks a validator makes before it looks at any account ("sanitize"). */
function sanitize(transaction: WireTransaction): void {
  const { header, signatures, staticAccountKeys, instructions, addressTableLookups } = transaction;
  const fail = (why: string): never => {
    throw new MalformedTransactionError(`Transaction failed to sanitize accounts offsets correctly: ${why}`);
  };
  if (signatures.length === 0) fail("no signatures");
  if (signatures.length !== header.numRequiredSignatures) {
    fail(`${signatures.length} signatures for ${header.numRequiredSignatures} required signers`);
  }
  if (header.numRequiredSignatures > staticAccountKeys.length) fail("more signers than account keys");
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures)
    fail("the fee payer must be writable");
  if (header.numRequiredSignatures + header.numReadonlyUnsignedAccounts > staticAccountKeys.length) {
    fail("more read-only accounts than account keys");
  }
  if (new Set(staticAccountKeys).size !== staticAccountKeys.length) fail("an account key appears twice");
  const loadedCount = addressTableLookups.reduce(
    (total, lookup) => total + lookup.writableIndexes.length + lookup.readonlyIndexes.length,
    0,
  );
  const totalKeys = staticAccountKeys.length + loadedCount;
  if (totalKeys > 256) fail("more than 256 accounts");
  for (const instruction of instructions) {
    if (instruction.programIdIndex === 0 || instruction.programIdIndex >= staticAccountKeys.length) {
      fail("invalid program id index");
    }
    if (instruction.accounts.some((index) => index >= totalKeys)) fail("invalid account index");
  }
}

/** The transaction as @solana/kit (and so litesvm) takes it: message bytes plus signatures by signer. */
export function toKitTransaction(transaction: WireTransaction): Transaction {
  const signatures: Record<Address, SignatureBytes | null> = {};
  transaction.signatures.forEach((signature, index) => {
    const signer = transaction.staticAccountKeys[index]!;
    signatures[signer] = signature.every((byte) => byte === 0) ? null : (signature as SignatureBytes);
  });
  return { messageBytes: transaction.messageBytes, signatures } as unknown as Transaction;
}

/** Whether account `index` of the static keys is writable, by the header's layout. */
export function isStaticAccountWritable(transaction: WireTransaction, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } =
    transaction.header;
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts;
  return index < transaction.staticAccountKeys.length - numReadonlyUnsignedAccounts;
}

/** Reads a bare message (as getFeeForMessage receives it) by framing it with empty signatures. */
export function parseWireMessage(messageBytes: Uint8Array): WireTransaction {
  const first = messageBytes[0];
  if (first === undefined) throw new MalformedTransactionError("empty message");
  const signerCount = first & 0x80 ? messageBytes[1] : first;
  if (signerCount === undefined || signerCount > 127)
    throw new MalformedTransactionError("invalid message header");
  const framed = new Uint8Array(1 + signerCount * 64 + messageBytes.length);
  framed[0] = signerCount;
  framed.set(messageBytes, 1 + signerCount * 64);
  return parseWireTransaction(framed);
}
