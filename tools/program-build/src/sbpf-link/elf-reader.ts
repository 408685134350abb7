import { readCString, readU16, readU32, readU64AsNumber, readU8 } from "./byte-io.js";
import {
  ELF_HEADER_SIZE,
  ELF_MAGIC,
  ELFCLASS64,
  ELFDATA2LSB,
  PROGRAM_HEADER_SIZE,
  REL_ENTRY_SIZE,
  SECTION_HEADER_SIZE,
  SectionType,
  SYMBOL_SIZE,
} from "./elf-constants.js";
import { SbpfLinkError } from "./errors.js";

/** A minimal reader for little-endian ELF64 files: headers, sections, symbols and REL relocations. */

export interface ElfSection {
  index: number;
  name: string;
  type: number;
  flags: number;
  addr: number;
  offset: number;
  size: number;
  link: number;
  info: number;
  addralign: number;
  entsize: number;
  /** The section's bytes in the file (empty for SHT_NOBITS). */
  data: Uint8Array;
}

export interface ElfProgramHeader {
  type: number;
  flags: number;
  offset: number;
  vaddr: number;
  paddr: number;
  filesz: number;
  memsz: number;
  align: number;
}

export interface ElfSymbol {
  index: number;
  name: string;
  value: number;
  size: number;
  binding: number;
  type: number;
  sectionIndex: number;
}

export interface ElfRelocation {
  offset: number;
  type: number;
  symbolIndex: number;
}

export interface ElfFile {
  bytes: Uint8Array;
  osabi: number;
  type: number;
  machine: number;
  version: number;
  entry: number;
  flags: number;
  sectionNameTableIndex: number;
  programHeaders: ElfProgramHeader[];
  sections: ElfSection[];
}

function checkIdentification(bytes: Uint8Array): void {
  if (bytes.length < ELF_HEADER_SIZE || !ELF_MAGIC.every((byte, i) => bytes[i] === byte)) {
    throw new SbpfLinkError("SBPF_LINK__NOT_A_BPF_OBJECT", { reason: "no ELF header" });
  }
  if (bytes[4] !== ELFCLASS64 || bytes[5] !== ELFDATA2LSB) {
    throw new SbpfLinkError("SBPF_LINK__NOT_A_BPF_OBJECT", { reason: "not a 64-bit little-endian ELF file" });
  }
}

function readProgramHeaders(bytes: Uint8Array, tableOffset: number, count: number): ElfProgramHeader[] {
  return Array.from({ length: count }, (_, i) => {
    const at = tableOffset + i * PROGRAM_HEADER_SIZE;
    return {
      type: readU32(bytes, at),
      flags: readU32(bytes, at + 4),
      offset: readU64AsNumber(bytes, at + 8),
      vaddr: readU64AsNumber(bytes, at + 16),
      paddr: readU64AsNumber(bytes, at + 24),
      filesz: readU64AsNumber(bytes, at + 32),
      memsz: readU64AsNumber(bytes, at + 40),
      align: readU64AsNumber(bytes, at + 48),
    };
  });
}

type UnnamedSection = Omit<ElfSection, "name"> & { nameOffset: number };

function readSectionHeader(bytes: Uint8Array, at: number, index: number): UnnamedSection {
  const type = readU32(bytes, at + 4);
  const offset = readU64AsNumber(bytes, at + 24);
  const size = readU64AsNumber(bytes, at + 32);
  const hasFileData = type !== SectionType.NOBITS && type !== SectionType.NULL;
  if (hasFileData && offset + size > bytes.length) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", {
      reason: `section ${index} spans bytes ${offset}..${offset + size} of a ${bytes.length}-byte file`,
    });
  }
  return {
    index,
    nameOffset: readU32(bytes, at),
    type,
    flags: readU64AsNumber(bytes, at + 8),
    addr: readU64AsNumber(bytes, at + 16),
    offset,
    size,
    link: readU32(bytes, at + 40),
    info: readU32(bytes, at + 44),
    addralign: Math.max(1, readU64AsNumber(bytes, at + 48)),
    entsize: readU64AsNumber(bytes, at + 56),
    data: hasFileData ? bytes.subarray(offset, offset + size) : new Uint8Array(0),
  };
}

export function readElf(bytes: Uint8Array): ElfFile {
  checkIdentification(bytes);
  const programHeaderOffset = readU64AsNumber(bytes, 32);
  const sectionHeaderOffset = readU64AsNumber(bytes, 40);
  const programHeaderCount = readU16(bytes, 56);
  const sectionHeaderCount = readU16(bytes, 60);
  const sectionNameTableIndex = readU16(bytes, 62);

  const unnamed = Array.from({ length: sectionHeaderCount }, (_, i) =>
    readSectionHeader(bytes, sectionHeaderOffset + i * SECTION_HEADER_SIZE, i),
  );
  const nameTable = unnamed[sectionNameTableIndex];
  if (nameTable === undefined || nameTable.type !== SectionType.STRTAB) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", { reason: "no section name string table" });
  }
  const sections = unnamed.map(({ nameOffset, ...section }) => ({
    ...section,
    name: readCString(nameTable.data, nameOffset),
  }));

  return {
    bytes,
    osabi: readU8(bytes, 7),
    type: readU16(bytes, 16),
    machine: readU16(bytes, 18),
    version: readU32(bytes, 20),
    entry: readU64AsNumber(bytes, 24),
    flags: readU32(bytes, 48),
    sectionNameTableIndex,
    programHeaders: readProgramHeaders(bytes, programHeaderOffset, programHeaderCount),
    sections,
  };
}

export function findSection(elf: ElfFile, name: string): ElfSection | undefined {
  return elf.sections.find((section) => section.name === name);
}

function sectionAt(elf: ElfFile, index: number, purpose: string): ElfSection {
  const section = elf.sections[index];
  if (section === undefined) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", {
      reason: `${purpose} refers to missing section ${index}`,
    });
  }
  return section;
}

/** Symbols of a SHT_SYMTAB or SHT_DYNSYM section, names resolved through its linked string table. */
export function readSymbols(elf: ElfFile, symbolTable: ElfSection): ElfSymbol[] {
  const names = sectionAt(elf, symbolTable.link, `symbol table ${symbolTable.name}`);
  const count = Math.floor(symbolTable.size / SYMBOL_SIZE);
  return Array.from({ length: count }, (_, index) => {
    const at = index * SYMBOL_SIZE;
    const info = readU8(symbolTable.data, at + 4);
    return {
      index,
      name: readCString(names.data, readU32(symbolTable.data, at)),
      binding: info >> 4,
      type: info & 0xf,
      sectionIndex: readU16(symbolTable.data, at + 6),
      value: readU64AsNumber(symbolTable.data, at + 8),
      size: readU64AsNumber(symbolTable.data, at + 16),
    };
  });
}

export function readRelocations(relocationSection: ElfSection): ElfRelocation[] {
  const count = Math.floor(relocationSection.size / REL_ENTRY_SIZE);
  return Array.from({ length: count }, (_, i) => {
    const at = i * REL_ENTRY_SIZE;
    return {
      offset: readU64AsNumber(relocationSection.data, at),
      type: readU32(relocationSection.data, at + 8),
      symbolIndex: readU32(relocationSection.data, at + 12),
    };
  });
}

/** The section a SHT_REL/SHT_RELA section applies to. */
export function relocatedSection(elf: ElfFile, relocationSection: ElfSection): ElfSection {
  return sectionAt(elf, relocationSection.info, `relocation section ${relocationSection.name}`);
}
