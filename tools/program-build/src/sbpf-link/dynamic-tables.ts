import { alignUp, writeU16, writeU32, writeU64, writeU8 } from "./byte-io.js";
import {
  BpfRelocation,
  DYNAMIC_ENTRY_SIZE,
  DynamicTag,
  REL_ENTRY_SIZE,
  SYMBOL_SIZE,
  SymbolBinding,
  SymbolType,
} from "./elf-constants.js";
import type { PlacedBytes } from "./elf-writer.js";
import type { SyscallCallSite } from "./relocate.js";

/**
 * The tables through which the loader resolves syscalls: one `.dynsym` entry per syscall name and
 * one R_BPF_64_32 relocation in `.rel.dyn` per `call -1`; the loader writes murmur3(name) into it.
 * SBPF v0 only: v3 has no dynamic tables.
 */

export interface DynamicTables {
  /** Syscall names in `.dynsym` order (entry 0 is the null symbol). */
  syscalls: string[];
  dynamic: PlacedBytes;
  dynsym: PlacedBytes;
  dynstr: PlacedBytes;
  /** Absent when the program calls no syscall: the loader rejects an empty DT_REL table. */
  relDyn: PlacedBytes | undefined;
  end: number;
}

function uniqueInFirstUseOrder(names: string[]): string[] {
  return [...new Set(names)];
}

function buildStringTable(names: string[]): { bytes: Uint8Array; offsets: Map<string, number> } {
  const encoder = new TextEncoder();
  const offsets = new Map<string, number>();
  const parts: Uint8Array[] = [new Uint8Array(1)];
  let length = 1;
  for (const name of names) {
    offsets.set(name, length);
    const encoded = encoder.encode(`${name}\0`);
    parts.push(encoded);
    length += encoded.length;
  }
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bytes.set(part, at);
    at += part.length;
  }
  return { bytes, offsets };
}

function buildSymbolTable(names: string[], nameOffsets: Map<string, number>): Uint8Array {
  const bytes = new Uint8Array((names.length + 1) * SYMBOL_SIZE);
  names.forEach((name, i) => {
    const at = (i + 1) * SYMBOL_SIZE;
    writeU32(bytes, at, nameOffsets.get(name) ?? 0);
    // Undefined global with no type: the loader treats it as a syscall, not as a bpf function.
    writeU8(bytes, at + 4, (SymbolBinding.GLOBAL << 4) | SymbolType.NOTYPE);
    writeU16(bytes, at + 6, 0);
  });
  return bytes;
}

function buildRelocationTable(callSites: SyscallCallSite[], symbolIndex: Map<string, number>): Uint8Array {
  const bytes = new Uint8Array(callSites.length * REL_ENTRY_SIZE);
  callSites.forEach((site, i) => {
    const at = i * REL_ENTRY_SIZE;
    writeU64(bytes, at, site.fileOffset);
    writeU32(bytes, at + 8, BpfRelocation.R_BPF_64_32);
    writeU32(bytes, at + 12, symbolIndex.get(site.name) ?? 0);
  });
  return bytes;
}

function buildDynamicSection(entries: Array<[number, number]>): Uint8Array {
  const bytes = new Uint8Array(entries.length * DYNAMIC_ENTRY_SIZE);
  entries.forEach(([tag, value], i) => {
    writeU64(bytes, i * DYNAMIC_ENTRY_SIZE, tag);
    writeU64(bytes, i * DYNAMIC_ENTRY_SIZE + 8, value);
  });
  return bytes;
}

export function buildDynamicTables(callSites: SyscallCallSite[], startOffset: number): DynamicTables {
  const syscalls = uniqueInFirstUseOrder(callSites.map((site) => site.name));
  const strings = buildStringTable(syscalls);
  const dynsymBytes = buildSymbolTable(syscalls, strings.offsets);
  const symbolIndex = new Map(syscalls.map((name, i) => [name, i + 1]));
  const relBytes = callSites.length > 0 ? buildRelocationTable(callSites, symbolIndex) : undefined;

  const entryCount = 4 + (relBytes ? 3 : 0) + 1;
  const dynamicOffset = alignUp(startOffset, 8);
  const dynsymOffset = dynamicOffset + entryCount * DYNAMIC_ENTRY_SIZE;
  const dynstrOffset = dynsymOffset + dynsymBytes.length;
  const relOffset = alignUp(dynstrOffset + strings.bytes.length, 8);

  const entries: Array<[number, number]> = [
    [DynamicTag.SYMTAB, dynsymOffset],
    [DynamicTag.STRTAB, dynstrOffset],
    [DynamicTag.STRSZ, strings.bytes.length],
    [DynamicTag.SYMENT, SYMBOL_SIZE],
  ];
  if (relBytes) {
    entries.push(
      [DynamicTag.REL, relOffset],
      [DynamicTag.RELSZ, relBytes.length],
      [DynamicTag.RELENT, REL_ENTRY_SIZE],
    );
  }
  entries.push([DynamicTag.NULL, 0]);

  return {
    syscalls,
    dynamic: { fileOffset: dynamicOffset, bytes: buildDynamicSection(entries) },
    dynsym: { fileOffset: dynsymOffset, bytes: dynsymBytes },
    dynstr: { fileOffset: dynstrOffset, bytes: strings.bytes },
    relDyn: relBytes ? { fileOffset: relOffset, bytes: relBytes } : undefined,
    end: relBytes ? relOffset + relBytes.length : dynstrOffset + strings.bytes.length,
  };
}
