import { alignUp, writeU16, writeU32, writeU64, writeU8 } from "./byte-io.js";
import {
  DYNAMIC_ENTRY_SIZE,
  ELF_HEADER_SIZE,
  ELF_MAGIC,
  ELFCLASS64,
  ELFDATA2LSB,
  ELFOSABI_NONE,
  ElfType,
  EM_BPF,
  EV_CURRENT,
  PROGRAM_HEADER_SIZE,
  ProgramHeaderFlag,
  ProgramHeaderType,
  REL_ENTRY_SIZE,
  SECTION_HEADER_SIZE,
  SectionFlag,
  SectionType,
  SYMBOL_SIZE,
} from "./elf-constants.js";
import type { DynamicTables, PlacedBytes } from "./dynamic-tables.js";
import { PROGRAM_HEADER_COUNT, type OutputSection } from "./layout.js";

/**
 * Serializes the SBPF v0 shared object. Every loaded section keeps sh_addr == sh_offset, sections
 * appear in ascending file order and segments in ascending address order: the checks the BPF
 * upgradeable loader applies when a program is deployed.
 */

export interface SharedObjectParts {
  text: OutputSection;
  rodata: OutputSection;
  tables: DynamicTables;
  entryFileOffset: number;
}

interface SectionHeader {
  name: string;
  type: number;
  flags: number;
  /** Loaded sections are addressed by their file offset; unloaded ones have address 0. */
  loaded: boolean;
  placed: PlacedBytes;
  link: number;
  info: number;
  addralign: number;
  entsize: number;
}

const NULL_SECTION: SectionHeader = {
  name: "",
  type: SectionType.NULL,
  flags: 0,
  loaded: false,
  placed: { fileOffset: 0, bytes: new Uint8Array(0) },
  link: 0,
  info: 0,
  addralign: 0,
  entsize: 0,
};

function describeSections(parts: SharedObjectParts, shstrtab: PlacedBytes): SectionHeader[] {
  const { text, rodata, tables } = parts;
  const loaded = (
    name: string,
    type: number,
    flags: number,
    placed: PlacedBytes,
    addralign: number,
  ): SectionHeader => ({ name, type, flags, loaded: true, placed, link: 0, info: 0, addralign, entsize: 0 });

  const sections: SectionHeader[] = [
    NULL_SECTION,
    loaded(".text", SectionType.PROGBITS, SectionFlag.ALLOC | SectionFlag.EXECINSTR, text, 8),
  ];
  if (rodata.bytes.length > 0) {
    sections.push(loaded(".rodata", SectionType.PROGBITS, SectionFlag.ALLOC, rodata, rodata.alignment));
  }
  const dynamicIndex = sections.length;
  const dynsymIndex = dynamicIndex + 1;
  const dynstrIndex = dynamicIndex + 2;
  sections.push(
    {
      ...loaded(".dynamic", SectionType.DYNAMIC, SectionFlag.ALLOC | SectionFlag.WRITE, tables.dynamic, 8),
      link: dynstrIndex,
      entsize: DYNAMIC_ENTRY_SIZE,
    },
    // sh_info of a symbol table is one past the last local symbol: only the null symbol is local.
    {
      ...loaded(".dynsym", SectionType.DYNSYM, SectionFlag.ALLOC, tables.dynsym, 8),
      link: dynstrIndex,
      info: 1,
      entsize: SYMBOL_SIZE,
    },
    loaded(".dynstr", SectionType.STRTAB, SectionFlag.ALLOC, tables.dynstr, 1),
  );
  if (tables.relDyn) {
    sections.push({
      ...loaded(".rel.dyn", SectionType.REL, SectionFlag.ALLOC, tables.relDyn, 8),
      link: dynsymIndex,
      entsize: REL_ENTRY_SIZE,
    });
  }
  sections.push({
    ...NULL_SECTION,
    name: ".shstrtab",
    type: SectionType.STRTAB,
    placed: shstrtab,
    addralign: 1,
  });
  return sections;
}

function buildSectionNameTable(names: string[]): { bytes: Uint8Array; offsets: Map<string, number> } {
  const encoder = new TextEncoder();
  const offsets = new Map<string, number>([["", 0]]);
  const chunks: number[] = [0];
  for (const name of names) {
    if (offsets.has(name)) continue;
    offsets.set(name, chunks.length);
    chunks.push(...encoder.encode(name), 0);
  }
  return { bytes: Uint8Array.from(chunks), offsets };
}

const SECTION_NAMES = [".text", ".rodata", ".dynamic", ".dynsym", ".dynstr", ".rel.dyn", ".shstrtab"];

function writeElfHeader(
  out: Uint8Array,
  parts: SharedObjectParts,
  shoff: number,
  sectionCount: number,
): void {
  out.set(ELF_MAGIC, 0);
  writeU8(out, 4, ELFCLASS64);
  writeU8(out, 5, ELFDATA2LSB);
  writeU8(out, 6, EV_CURRENT);
  writeU8(out, 7, ELFOSABI_NONE);
  writeU16(out, 16, ElfType.DYN);
  writeU16(out, 18, EM_BPF);
  writeU32(out, 20, EV_CURRENT);
  writeU64(out, 24, parts.entryFileOffset);
  writeU64(out, 32, ELF_HEADER_SIZE);
  writeU64(out, 40, shoff);
  writeU32(out, 48, 0); // e_flags 0 selects SBPF v0
  writeU16(out, 52, ELF_HEADER_SIZE);
  writeU16(out, 54, PROGRAM_HEADER_SIZE);
  writeU16(out, 56, PROGRAM_HEADER_COUNT);
  writeU16(out, 58, SECTION_HEADER_SIZE);
  writeU16(out, 60, sectionCount);
  writeU16(out, 62, sectionCount - 1); // .shstrtab is last
}

function writeProgramHeader(out: Uint8Array, index: number, type: number, flags: number, range: PlacedBytes) {
  const at = ELF_HEADER_SIZE + index * PROGRAM_HEADER_SIZE;
  writeU32(out, at, type);
  writeU32(out, at + 4, flags);
  writeU64(out, at + 8, range.fileOffset);
  writeU64(out, at + 16, range.fileOffset);
  writeU64(out, at + 24, range.fileOffset);
  writeU64(out, at + 32, range.bytes.length);
  writeU64(out, at + 40, range.bytes.length);
  writeU64(out, at + 48, 8);
}

function writeProgramHeaders(out: Uint8Array, parts: SharedObjectParts): void {
  const { text, rodata, tables } = parts;
  const readOnlyStart = rodata.bytes.length > 0 ? rodata.fileOffset : tables.dynamic.fileOffset;
  const readOnlySegment = {
    fileOffset: readOnlyStart,
    bytes: out.subarray(readOnlyStart, tables.end),
  };
  writeProgramHeader(out, 0, ProgramHeaderType.LOAD, ProgramHeaderFlag.R | ProgramHeaderFlag.X, text);
  writeProgramHeader(out, 1, ProgramHeaderType.LOAD, ProgramHeaderFlag.R, readOnlySegment);
  writeProgramHeader(
    out,
    2,
    ProgramHeaderType.DYNAMIC,
    ProgramHeaderFlag.R | ProgramHeaderFlag.W,
    tables.dynamic,
  );
}

function writeSectionHeader(out: Uint8Array, at: number, header: SectionHeader, nameOffset: number): void {
  writeU32(out, at, nameOffset);
  writeU32(out, at + 4, header.type);
  writeU64(out, at + 8, header.flags);
  writeU64(out, at + 16, header.loaded ? header.placed.fileOffset : 0);
  writeU64(out, at + 24, header.placed.fileOffset);
  writeU64(out, at + 32, header.placed.bytes.length);
  writeU32(out, at + 40, header.link);
  writeU32(out, at + 44, header.info);
  writeU64(out, at + 48, header.addralign);
  writeU64(out, at + 56, header.entsize);
}

export function writeSharedObject(parts: SharedObjectParts): Uint8Array {
  const names = buildSectionNameTable(SECTION_NAMES);
  const shstrtab: PlacedBytes = { fileOffset: parts.tables.end, bytes: names.bytes };
  const sections = describeSections(parts, shstrtab);
  const shoff = alignUp(shstrtab.fileOffset + shstrtab.bytes.length, 8);

  const out = new Uint8Array(shoff + sections.length * SECTION_HEADER_SIZE);
  sections.forEach((section, index) => {
    out.set(section.placed.bytes, section.placed.fileOffset);
    writeSectionHeader(
      out,
      shoff + index * SECTION_HEADER_SIZE,
      section,
      names.offsets.get(section.name) ?? 0,
    );
  });
  writeElfHeader(out, parts, shoff, sections.length);
  writeProgramHeaders(out, parts);
  return out;
}
