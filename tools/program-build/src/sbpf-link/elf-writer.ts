import { alignUp, writeU16, writeU32, writeU64, writeU8 } from "./byte-io.js";
import {
  ELF_HEADER_SIZE,
  ELF_MAGIC,
  ELFCLASS64,
  ELFDATA2LSB,
  ELFOSABI_NONE,
  ElfType,
  EM_BPF,
  EV_CURRENT,
  PROGRAM_HEADER_SIZE,
  SECTION_HEADER_SIZE,
  SectionType,
} from "./elf-constants.js";
import type { SbpfVersion } from "./sbpf-version.js";

/**
 * Serializes an ELF64 image from placed bytes, program headers and section headers. What goes
 * where is decided per SBPF version (shared-object-v0.ts, strict-program-v3.ts); this only writes.
 */

export interface PlacedBytes {
  fileOffset: number;
  bytes: Uint8Array;
}

export interface SectionHeader {
  name: string;
  type: number;
  flags: number;
  /** sh_addr: where the section is in the VM (0 for sections that are not loaded). */
  address: bigint;
  placed: PlacedBytes;
  link: number;
  info: number;
  addralign: number;
  entsize: number;
}

export interface ProgramHeader {
  type: number;
  flags: number;
  fileOffset: number;
  vaddr: bigint;
  size: number;
}

export interface ElfImage {
  /** Written to e_flags, where the loader reads the SBPF version. */
  version: SbpfVersion;
  entry: bigint;
  programHeaders: ProgramHeader[];
  /** Without the null section and .shstrtab, which are added. */
  sections: SectionHeader[];
  /** End of the last placed bytes; .shstrtab and the section headers follow. */
  end: number;
}

const NULL_SECTION: SectionHeader = {
  name: "",
  type: SectionType.NULL,
  flags: 0,
  address: 0n,
  placed: { fileOffset: 0, bytes: new Uint8Array(0) },
  link: 0,
  info: 0,
  addralign: 0,
  entsize: 0,
};

/** Fields of a section header for loaded bytes, with the defaults most sections use. */
export function loadedSection(
  name: string,
  type: number,
  flags: number,
  placed: PlacedBytes,
  address: bigint,
  addralign: number,
): SectionHeader {
  return { name, type, flags, address, placed, link: 0, info: 0, addralign, entsize: 0 };
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

function writeElfHeader(out: Uint8Array, image: ElfImage, shoff: number, sectionCount: number): void {
  out.set(ELF_MAGIC, 0);
  writeU8(out, 4, ELFCLASS64);
  writeU8(out, 5, ELFDATA2LSB);
  writeU8(out, 6, EV_CURRENT);
  writeU8(out, 7, ELFOSABI_NONE);
  writeU16(out, 16, ElfType.DYN);
  writeU16(out, 18, EM_BPF);
  writeU32(out, 20, EV_CURRENT);
  writeU64(out, 24, image.entry);
  writeU64(out, 32, ELF_HEADER_SIZE);
  writeU64(out, 40, shoff);
  writeU32(out, 48, image.version);
  writeU16(out, 52, ELF_HEADER_SIZE);
  writeU16(out, 54, PROGRAM_HEADER_SIZE);
  writeU16(out, 56, image.programHeaders.length);
  writeU16(out, 58, SECTION_HEADER_SIZE);
  writeU16(out, 60, sectionCount);
  writeU16(out, 62, sectionCount - 1); // .shstrtab is last
}

function writeProgramHeader(out: Uint8Array, index: number, header: ProgramHeader): void {
  const at = ELF_HEADER_SIZE + index * PROGRAM_HEADER_SIZE;
  writeU32(out, at, header.type);
  writeU32(out, at + 4, header.flags);
  writeU64(out, at + 8, header.fileOffset);
  writeU64(out, at + 16, header.vaddr);
  writeU64(out, at + 24, header.vaddr);
  writeU64(out, at + 32, header.size);
  writeU64(out, at + 40, header.size);
  writeU64(out, at + 48, 8);
}

function writeSectionHeader(out: Uint8Array, at: number, header: SectionHeader, nameOffset: number): void {
  writeU32(out, at, nameOffset);
  writeU32(out, at + 4, header.type);
  writeU64(out, at + 8, header.flags);
  writeU64(out, at + 16, header.address);
  writeU64(out, at + 24, header.placed.fileOffset);
  writeU64(out, at + 32, header.placed.bytes.length);
  writeU32(out, at + 40, header.link);
  writeU32(out, at + 44, header.info);
  writeU64(out, at + 48, header.addralign);
  writeU64(out, at + 56, header.entsize);
}

export function writeElf(image: ElfImage): Uint8Array {
  const names = buildSectionNameTable([...image.sections.map((section) => section.name), ".shstrtab"]);
  const shstrtab: SectionHeader = {
    ...NULL_SECTION,
    name: ".shstrtab",
    type: SectionType.STRTAB,
    placed: { fileOffset: image.end, bytes: names.bytes },
    addralign: 1,
  };
  const sections = [NULL_SECTION, ...image.sections, shstrtab];
  const shoff = alignUp(shstrtab.placed.fileOffset + shstrtab.placed.bytes.length, 8);

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
  writeElfHeader(out, image, shoff, sections.length);
  image.programHeaders.forEach((header, index) => writeProgramHeader(out, index, header));
  return out;
}
