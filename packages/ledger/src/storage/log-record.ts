/**
 * The records of the event log, in a small binary layout (little-endian):
 *   transaction:  u8 1 | u64 slot | u64 epoch | i64 epoch_start_timestamp | i64 unix_timestamp
 *                 | u32 length + transaction bytes | u32 length + metadata JSON
 *   clock anchor: u8 2 | u64 slot | f64 unix_ms | u32 slot_ms
 *   durable mark: u8 3 | 16-byte key | u64 end
 * A transaction record holds everything needed both to re-execute it exactly (bytes and clock)
 * and to serve its history without re-executing (metadata).
 */
import { createHash } from "node:crypto";

import type { BlockClock, ClockAnchor } from "../ledger/ledger-time.js";
import {
  deserializeTransactionMeta,
  serializeTransactionMeta,
  type TransactionMeta,
} from "../transactions/transaction-meta.js";

export interface TransactionRecord {
  readonly kind: "transaction";
  readonly clock: BlockClock;
  readonly transaction: Uint8Array;
  readonly meta: TransactionMeta;
}

export interface ClockAnchorRecord {
  readonly kind: "clock-anchor";
  readonly anchor: ClockAnchor;
}

/**
 * Every byte of the log before `end` was on disk when this record was written: a damaged record
 * before `end` is not a write a crash cut short, it was confirmed. Recovery looks for these at any
 * byte past a damaged record, so each carries the ledger's own key (`durableMarkKey`), which no
 * client knows: bytes a client put in a transaction cannot pass for one.
 */
export interface DurableMarkRecord {
  readonly kind: "durable-mark";
  readonly key: Uint8Array;
  readonly end: number;
}

const DURABLE_MARK_KEY_LENGTH = 16;
/** The payload length of a durable-mark record. */
export const DURABLE_MARK_LENGTH = 1 + DURABLE_MARK_KEY_LENGTH + 8;

/** The key of a ledger's durable marks, derived from a secret of its data directory. */
export function durableMarkKey(secret: Uint8Array): Uint8Array {
  return createHash("sha256")
    .update("abas-ledger durable mark\0")
    .update(secret)
    .digest()
    .subarray(0, DURABLE_MARK_KEY_LENGTH);
}

/** The bytes every durable-mark record with `key` starts with. */
export function durableMarkPrefix(key: Uint8Array): Uint8Array {
  return Uint8Array.of(DURABLE_MARK, ...key);
}

export type LogRecord = TransactionRecord | ClockAnchorRecord | DurableMarkRecord;

const TRANSACTION = 1;
const CLOCK_ANCHOR = 2;
const DURABLE_MARK = 3;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true });

export function encodeLogRecord(record: LogRecord): Uint8Array {
  if (record.kind === "durable-mark") {
    const out = new Uint8Array(DURABLE_MARK_LENGTH);
    out.set(durableMarkPrefix(record.key));
    new DataView(out.buffer).setBigUint64(1 + DURABLE_MARK_KEY_LENGTH, BigInt(record.end), true);
    return out;
  }
  if (record.kind === "clock-anchor") {
    const out = new Uint8Array(1 + 8 + 8 + 4);
    const view = new DataView(out.buffer);
    out[0] = CLOCK_ANCHOR;
    view.setBigUint64(1, record.anchor.slot, true);
    view.setFloat64(9, record.anchor.unixMs, true);
    view.setUint32(17, record.anchor.slotMs, true);
    return out;
  }
  const meta = utf8.encode(serializeTransactionMeta(record.meta));
  const out = new Uint8Array(1 + 32 + 4 + record.transaction.length + 4 + meta.length);
  const view = new DataView(out.buffer);
  out[0] = TRANSACTION;
  view.setBigUint64(1, record.clock.slot, true);
  view.setBigUint64(9, record.clock.epoch, true);
  view.setBigInt64(17, record.clock.epochStartTimestamp, true);
  view.setBigInt64(25, record.clock.unixTimestamp, true);
  view.setUint32(33, record.transaction.length, true);
  out.set(record.transaction, 37);
  const metaAt = 37 + record.transaction.length;
  view.setUint32(metaAt, meta.length, true);
  out.set(meta, metaAt + 4);
  return out;
}

export class CorruptRecordError extends Error {
  override readonly name = "CorruptRecordError";
}

export function decodeLogRecord(payload: Uint8Array): LogRecord {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const need = (length: number): void => {
    if (payload.length < length)
      throw new CorruptRecordError(`record of ${payload.length} bytes is too short`);
  };
  need(1);
  if (payload[0] === CLOCK_ANCHOR) {
    need(21);
    return {
      kind: "clock-anchor",
      anchor: {
        slot: view.getBigUint64(1, true),
        unixMs: view.getFloat64(9, true),
        slotMs: view.getUint32(17, true),
      },
    };
  }
  if (payload[0] === DURABLE_MARK) {
    need(DURABLE_MARK_LENGTH);
    return {
      kind: "durable-mark",
      key: payload.slice(1, 1 + DURABLE_MARK_KEY_LENGTH),
      end: Number(view.getBigUint64(1 + DURABLE_MARK_KEY_LENGTH, true)),
    };
  }
  if (payload[0] !== TRANSACTION) throw new CorruptRecordError(`unknown record kind ${payload[0]}`);
  need(37);
  const transactionLength = view.getUint32(33, true);
  need(37 + transactionLength + 4);
  const metaAt = 37 + transactionLength;
  const metaLength = view.getUint32(metaAt, true);
  need(metaAt + 4 + metaLength);
  return {
    kind: "transaction",
    clock: {
      slot: view.getBigUint64(1, true),
      epoch: view.getBigUint64(9, true),
      epochStartTimestamp: view.getBigInt64(17, true),
      unixTimestamp: view.getBigInt64(25, true),
    },
    transaction: payload.slice(37, metaAt),
    meta: deserializeTransactionMeta(fromUtf8.decode(payload.subarray(metaAt + 4, metaAt + 4 + metaLength))),
  };
}
