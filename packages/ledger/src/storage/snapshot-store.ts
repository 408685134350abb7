/**
 * Snapshots: the SVM state (litesvm `toBytes()`), the history index and the clock anchors, taken
 * at a known event-log offset, so that startup loads one and replays only the log after it.
 *
 * File layout: "ABASSNP1" | u32 header length | header JSON | SVM bytes | history JSON | SHA-256 of
 * everything before it. Written atomically; a file whose checksum fails is skipped, and the
 * previous snapshot is used instead (the two newest are kept).
 */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

import type { ClockAnchor } from "../ledger/ledger-time.js";
import type { Logger } from "../logger.js";
import { writeFileAtomically } from "./atomic-file.js";
import type { SerializedHistory } from "./history-index.js";

const MAGIC = new TextEncoder().encode("ABASSNP1");
const CHECKSUM_SIZE = 32;
const SNAPSHOTS_KEPT = 2;
const NAME = /^snapshot-(\d{16})\.bin$/;

export interface Snapshot {
  /** Event-log offset up to which the snapshot includes every record. */
  readonly logOffset: number;
  readonly anchors: readonly ClockAnchor[];
  readonly svmState: Uint8Array;
  readonly history: SerializedHistory;
}

interface SnapshotHeader {
  version: 1;
  logOffset: number;
  anchors: { slot: string; unixMs: number; slotMs: number }[];
  svmLength: number;
  historyLength: number;
  createdAt: string;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export class SnapshotStore {
  constructor(
    readonly directory: string,
    private readonly logger: Logger,
    /** Throws when this process may no longer write the folder (it was taken over): checked before each write. */
    private readonly assertOwned: () => void = () => {},
  ) {}

  /** Writes a snapshot and drops all but the newest ones; returns its path. */
  write(snapshot: Snapshot): string {
    this.assertOwned();
    const history = utf8.encode(JSON.stringify(snapshot.history));
    const header: SnapshotHeader = {
      version: 1,
      logOffset: snapshot.logOffset,
      anchors: snapshot.anchors.map((anchor) => ({ ...anchor, slot: anchor.slot.toString() })),
      svmLength: snapshot.svmState.length,
      historyLength: history.length,
      createdAt: new Date().toISOString(),
    };
    const headerBytes = utf8.encode(JSON.stringify(header));
    const headerLength = new Uint8Array(4);
    new DataView(headerLength.buffer).setUint32(0, headerBytes.length, true);
    const parts = [MAGIC, headerLength, headerBytes, snapshot.svmState, history];
    const hash = createHash("sha256");
    for (const part of parts) hash.update(part);
    const path = join(this.directory, `snapshot-${String(snapshot.logOffset).padStart(16, "0")}.bin`);
    writeFileAtomically(path, [...parts, new Uint8Array(hash.digest())]);
    this.prune();
    return path;
  }

  /** The newest snapshot whose checksum holds (with the file it came from), or undefined. */
  loadNewest(): (Snapshot & { readonly path: string }) | undefined {
    for (const name of this.names().reverse()) {
      const path = join(this.directory, name);
      try {
        return { ...this.read(path), path };
      } catch (error) {
        this.logger.warn("skipping unreadable snapshot", { path, reason: (error as Error).message });
      }
    }
    return undefined;
  }

  private read(path: string): Snapshot {
    const bytes = new Uint8Array(readFileSync(path));
    if (bytes.length < MAGIC.length + 4 + CHECKSUM_SIZE || !MAGIC.every((byte, i) => bytes[i] === byte)) {
      throw new Error("not a ledger snapshot");
    }
    const body = bytes.subarray(0, bytes.length - CHECKSUM_SIZE);
    const checksum = createHash("sha256").update(body).digest();
    if (!checksum.equals(bytes.subarray(bytes.length - CHECKSUM_SIZE))) throw new Error("checksum mismatch");
    const headerLength = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
    let offset = MAGIC.length + 4;
    const header = JSON.parse(
      fromUtf8.decode(body.subarray(offset, offset + headerLength)),
    ) as SnapshotHeader;
    offset += headerLength;
    const svmState = body.slice(offset, offset + header.svmLength);
    offset += header.svmLength;
    const history = JSON.parse(
      fromUtf8.decode(body.subarray(offset, offset + header.historyLength)),
    ) as SerializedHistory;
    return {
      logOffset: header.logOffset,
      anchors: header.anchors.map((anchor) => ({ ...anchor, slot: BigInt(anchor.slot) })),
      svmState,
      history,
    };
  }

  private names(): string[] {
    return readdirSync(this.directory)
      .filter((name) => NAME.test(name))
      .sort();
  }

  private prune(): void {
    for (const name of this.names().slice(0, -SNAPSHOTS_KEPT))
      rmSync(join(this.directory, name), { force: true });
    // Temporary files of an interrupted write are garbage.
    for (const name of readdirSync(this.directory).filter((entry) => entry.includes(".tmp-"))) {
      if (!name.endsWith(`.tmp-${process.pid}`)) rmSync(join(this.directory, name), { force: true });
    }
  }
}
