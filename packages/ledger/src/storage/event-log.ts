/**
 * The append-only event log: the ledger's source of truth. Each record is framed as
 * `u32 payload length | u32 CRC-32 of the payload | payload` after an 8-byte file header.
 * `append` returns only after the bytes reached the disk (fdatasync), unless told otherwise; then
 * `sync` makes every earlier append durable at once (group commit), off the main thread. Whatever
 * the ledger confirmed to a client was covered by one of these, so it survives a crash. A crash
 * mid-append leaves a torn last frame, which `scan` detects (short read or CRC mismatch) and
 * `truncate` cuts off. `durableEnd` says how far the file is known to be on disk, for the ledger's
 * durable-mark records, which tell such a tear from damage to frames already confirmed.
 */
import {
  closeSync,
  fdatasync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readSync,
  writeSync,
} from "node:fs";
import { crc32 } from "node:zlib";

import { PRIVATE_FILE_MODE } from "./data-dir.js";

const FILE_HEADER = new TextEncoder().encode("ABASLOG1");
const FRAME_HEADER_SIZE = 8;
/** Far above any record (a transaction is at most 1,232 bytes plus its metadata). */
const MAX_PAYLOAD_SIZE = 64 * 1024 * 1024;

export interface LogPosition {
  /** Byte offset of the frame in the file. */
  readonly offset: number;
  /** Frame length in bytes, header included. */
  readonly length: number;
}

export interface ScannedFrame extends LogPosition {
  readonly payload: Uint8Array;
}

export interface ScanResult {
  readonly frames: ScannedFrame[];
  /** Where the valid frames end. */
  readonly end: number;
  /** Bytes after `end` that do not form a valid frame (a torn write), or 0. */
  readonly tornBytes: number;
}

export interface EventLogOptions {
  /** Throws when this process may no longer write the log (its folder was taken over): checked before each write. */
  readonly assertOwned?: () => void;
}

export class EventLog {
  private syncsInFlight = 0;
  private closeRequested = false;
  private durable: number;

  private constructor(
    private readonly fd: number,
    private size: number,
    private readonly assertOwned: () => void,
  ) {
    this.durable = size;
  }

  /** Opens the log, creating it (with its header) when missing. */
  static open(path: string, { assertOwned = () => {} }: EventLogOptions = {}): EventLog {
    const fd = openSync(path, "a+", PRIVATE_FILE_MODE);
    // "a+" would force every write to the end; reopen read-write now that the file exists.
    closeSync(fd);
    const rw = openSync(path, "r+");
    const size = fstatSync(rw).size;
    if (size === 0) {
      writeSync(rw, FILE_HEADER, 0, FILE_HEADER.length, 0);
      fdatasyncSync(rw);
      return new EventLog(rw, FILE_HEADER.length, assertOwned);
    }
    const header = new Uint8Array(FILE_HEADER.length);
    const read = readSync(rw, header, 0, header.length, 0);
    if (read !== header.length || !header.every((byte, i) => byte === FILE_HEADER[i])) {
      closeSync(rw);
      throw new Error(`${path} is not an ABAS ledger event log`);
    }
    // What a killed process appended may still be only in the OS's cache: on disk from here on.
    fdatasyncSync(rw);
    return new EventLog(rw, size, assertOwned);
  }

  /** Offset of the first record. */
  static get firstRecordOffset(): number {
    return FILE_HEADER.length;
  }

  get end(): number {
    return this.size;
  }

  /** Every byte before this offset is on disk (a sync or flush covering it has returned). */
  get durableEnd(): number {
    return this.durable;
  }

  /** Appends one record; with `durable` (the default) returns only once it is on disk. */
  append(payload: Uint8Array, options: { durable?: boolean } = {}): LogPosition {
    this.assertOwned();
    const frame = new Uint8Array(FRAME_HEADER_SIZE + payload.length);
    const view = new DataView(frame.buffer);
    view.setUint32(0, payload.length, true);
    view.setUint32(4, crc32(payload), true);
    frame.set(payload, FRAME_HEADER_SIZE);
    const offset = this.size;
    let written = 0;
    while (written < frame.length) {
      written += writeSync(this.fd, frame, written, frame.length - written, offset + written);
    }
    this.size += frame.length;
    if (options.durable ?? true) this.flush();
    return { offset, length: frame.length };
  }

  /** Forces earlier non-durable appends to disk. */
  flush(): void {
    fdatasyncSync(this.fd);
    this.durable = this.size;
  }

  /**
   * Makes every append made before this call durable, in the thread pool: the main thread goes on
   * (executing and appending the next transactions) while the disk works.
   */
  sync(): Promise<void> {
    this.syncsInFlight += 1;
    const covered = this.size;
    return new Promise((resolve, reject) => {
      fdatasync(this.fd, (error) => {
        this.syncsInFlight -= 1;
        if (this.closeRequested && this.syncsInFlight === 0) closeSync(this.fd);
        if (error !== null) return reject(error);
        this.durable = Math.max(this.durable, covered);
        resolve();
      });
    });
  }

  /** The payload of the frame at `position` (as returned by `append` or `scan`). */
  read(position: LogPosition): Uint8Array {
    const frame = new Uint8Array(position.length);
    const read = readSync(this.fd, frame, 0, frame.length, position.offset);
    if (read !== frame.length) throw new Error(`event log frame at ${position.offset} is truncated`);
    return frame.subarray(FRAME_HEADER_SIZE);
  }

  /** Reads every valid frame from `from` on, stopping at the end or at the first torn frame. */
  scan(from: number): ScanResult {
    const frames: ScannedFrame[] = [];
    let offset = from;
    for (let frame = this.frameAt(offset); frame !== undefined; frame = this.frameAt(offset)) {
      frames.push(frame);
      offset += frame.length;
    }
    return { frames, end: offset, tornBytes: this.size - offset };
  }

  /**
   * The intact frames from `from` on whose payload is `payloadLength` bytes and starts with
   * `prefix`, found at any byte (not only where the frame before ends): past a damaged frame, even
   * one whose length is gone, such frames can still be found.
   */
  findFrames(from: number, prefix: Uint8Array, payloadLength: number): ScannedFrame[] {
    const tail = Buffer.alloc(Math.max(0, this.size - from));
    readSync(this.fd, tail, 0, tail.length, from);
    const frames: ScannedFrame[] = [];
    for (let hit = tail.indexOf(prefix); hit !== -1; hit = tail.indexOf(prefix, hit + 1)) {
      const frame = hit - FRAME_HEADER_SIZE;
      if (frame < 0 || hit + payloadLength > tail.length) continue;
      if (tail.readUInt32LE(frame) !== payloadLength) continue;
      const payload = tail.subarray(hit, hit + payloadLength);
      if (crc32(payload) !== tail.readUInt32LE(frame + 4)) continue;
      frames.push({ offset: from + frame, length: FRAME_HEADER_SIZE + payloadLength, payload });
    }
    return frames;
  }

  /** The payload length the frame header at `offset` declares, when the frame fits in the file. */
  private declaredLength(offset: number): number | undefined {
    const header = new Uint8Array(FRAME_HEADER_SIZE);
    if (readSync(this.fd, header, 0, FRAME_HEADER_SIZE, offset) !== FRAME_HEADER_SIZE) return undefined;
    const length = new DataView(header.buffer).getUint32(0, true);
    return length === 0 || length > MAX_PAYLOAD_SIZE || offset + FRAME_HEADER_SIZE + length > this.size
      ? undefined
      : length;
  }

  /** The whole, intact frame at `offset`, if there is one. */
  private frameAt(offset: number): ScannedFrame | undefined {
    const length = this.declaredLength(offset);
    if (length === undefined) return undefined;
    const frame = new Uint8Array(FRAME_HEADER_SIZE + length);
    if (readSync(this.fd, frame, 0, frame.length, offset) !== frame.length) return undefined;
    const payload = frame.subarray(FRAME_HEADER_SIZE);
    if (crc32(payload) !== new DataView(frame.buffer).getUint32(4, true)) return undefined;
    return { offset, length: frame.length, payload };
  }

  /** Cuts the file at `end` (after a torn frame was found there). */
  truncate(end: number): void {
    this.assertOwned();
    ftruncateSync(this.fd, end);
    fdatasyncSync(this.fd);
    this.size = end;
    this.durable = Math.min(this.durable, end);
  }

  /** Closes the file, once any `sync` still running has finished with it. */
  close(): void {
    if (this.closeRequested) return;
    this.closeRequested = true;
    if (this.syncsInFlight === 0) closeSync(this.fd);
  }
}
