import { alignUp } from "./byte-io.js";
import {
  ELF_HEADER_SIZE,
  PROGRAM_HEADER_SIZE,
  SBPF_INSTRUCTION_SIZE,
  SBPF_PROGRAM_VADDR,
  SBPF_V3_RODATA_VADDR,
  SectionFlag,
  SectionType,
} from "./elf-constants.js";
import type { ElfFile, ElfSection } from "./elf-reader.js";
import { SbpfLinkError } from "./errors.js";
import type { SbpfVersion } from "./sbpf-version.js";

/**
 * Where every loaded input section lands in the output file and in the VM's address space.
 *
 * v0: the loader maps the whole file at 0x1_0000_0000, so an address is that base + file offset
 * (sh_addr == sh_offset); code comes first, read-only data after it.
 * v3 (SIMD-0189): read-only data is its own segment at address 0 and comes first, right after the
 * program headers; the bytecode segment follows it and is mapped at 0x1_0000_0000.
 */

export type OutputSectionName = ".text" | ".rodata";

export interface OutputSection {
  name: OutputSectionName;
  fileOffset: number;
  /** Address of the first byte in the VM. */
  vaddr: bigint;
  alignment: number;
  bytes: Uint8Array;
  inputs: ElfSection[];
}

export interface Placement {
  output: OutputSection;
  /** File offset of the input section's first byte. */
  fileOffset: number;
}

export interface ProgramLayout {
  version: SbpfVersion;
  text: OutputSection;
  rodata: OutputSection;
  /** Input section index -> placement, for every section that is part of the program image. */
  placements: Map<number, Placement>;
}

/** v0: two PT_LOAD segments (code, read-only data + dynamic tables) and PT_DYNAMIC. */
export const V0_PROGRAM_HEADER_COUNT = 3;
/** v3: PT_LOAD of read-only data (PF_R), then PT_LOAD of bytecode (PF_X); nothing else. */
export const V3_PROGRAM_HEADER_COUNT = 2;

/**
 * v3 maps read-only data at address 0, so its first object would have the null address, which
 * Rust assumes no reference ever has (Option<&T> is None exactly when the pointer is 0). The
 * first 8 bytes stay unused.
 */
export const V3_RODATA_NULL_GUARD = 8;

export function programHeaderCount(version: SbpfVersion): number {
  return version === 0 ? V0_PROGRAM_HEADER_COUNT : V3_PROGRAM_HEADER_COUNT;
}

/** The VM address of a byte of the output file. */
export function addressOf(placement: Placement, offsetInInput: number): bigint {
  const { output } = placement;
  return output.vaddr + BigInt(placement.fileOffset + offsetInInput - output.fileOffset);
}

type SectionRole = "code" | "read-only data" | "not loaded";

function isLoaded(section: ElfSection): boolean {
  return (section.flags & SectionFlag.ALLOC) !== 0;
}

/** Decides what an input section becomes; refuses the writable data SBPF cannot map. */
export function classifyInputSection(section: ElfSection): SectionRole {
  if (!isLoaded(section)) return "not loaded";
  const writable = (section.flags & SectionFlag.WRITE) !== 0 || section.type === SectionType.NOBITS;
  // Relocated constants (vtables, tables of pointers) are written once at link time and read-only after.
  const relocatedConstants = section.name.startsWith(".data.rel.ro");
  if (writable && !relocatedConstants) {
    // An empty writable section holds no state; assemblers emit them by habit.
    if (section.size === 0) return "not loaded";
    throw new SbpfLinkError("SBPF_LINK__WRITABLE_SECTION", { section: section.name });
  }
  return (section.flags & SectionFlag.EXECINSTR) !== 0 ? "code" : "read-only data";
}

interface OutputStart {
  fileOffset: number;
  vaddr: bigint;
  /** Bytes left unused before the first input. */
  reserved: number;
  /** The output's size is rounded up to a multiple of this. */
  sizeMultiple: number;
}

/**
 * Concatenates input sections, each at its own alignment counted from the output's start. Every
 * output starts at an address aligned for all its inputs, so aligned offsets are aligned addresses.
 */
function mergeSections(
  name: OutputSectionName,
  inputs: ElfSection[],
  start: OutputStart,
  minimumInputAlignment: number,
  placements: Map<number, Placement>,
): OutputSection {
  const alignment = inputs.reduce((max, s) => Math.max(max, s.addralign), SBPF_INSTRUCTION_SIZE);
  const offsets: number[] = [];
  let end = start.reserved;
  for (const input of inputs) {
    const at = alignUp(end, Math.max(input.addralign, minimumInputAlignment));
    offsets.push(at);
    end = at + input.size;
  }
  const output: OutputSection = {
    name,
    fileOffset: start.fileOffset,
    vaddr: start.vaddr,
    alignment,
    bytes: new Uint8Array(alignUp(end, start.sizeMultiple)),
    inputs,
  };
  inputs.forEach((input, i) => {
    const at = offsets[i] ?? 0;
    output.bytes.set(input.data, at);
    placements.set(input.index, { output, fileOffset: start.fileOffset + at });
  });
  return output;
}

function sortInputSections(elf: ElfFile): { code: ElfSection[]; readOnlyData: ElfSection[] } {
  const code: ElfSection[] = [];
  const readOnlyData: ElfSection[] = [];
  for (const section of elf.sections) {
    const role = classifyInputSection(section);
    if (role === "code") code.push(section);
    else if (role === "read-only data") readOnlyData.push(section);
  }
  return { code, readOnlyData };
}

function layOutV0(code: ElfSection[], readOnlyData: ElfSection[]): ProgramLayout {
  const placements = new Map<number, Placement>();
  const headersEnd = ELF_HEADER_SIZE + V0_PROGRAM_HEADER_COUNT * PROGRAM_HEADER_SIZE;
  const loadedAt = (offset: number, inputs: ElfSection[]): OutputStart => {
    // Starting every output section on an instruction boundary keeps both segments 8-byte aligned.
    const alignment = inputs.reduce((max, s) => Math.max(max, s.addralign), SBPF_INSTRUCTION_SIZE);
    const fileOffset = alignUp(offset, alignment);
    return { fileOffset, vaddr: SBPF_PROGRAM_VADDR + BigInt(fileOffset), reserved: 0, sizeMultiple: 1 };
  };
  const text = mergeSections(".text", code, loadedAt(headersEnd, code), SBPF_INSTRUCTION_SIZE, placements);
  const rodataStart = loadedAt(text.fileOffset + text.bytes.length, readOnlyData);
  const rodata = mergeSections(".rodata", readOnlyData, rodataStart, 1, placements);
  return { version: 0, text, rodata, placements };
}

function layOutV3(code: ElfSection[], readOnlyData: ElfSection[]): ProgramLayout {
  const placements = new Map<number, Placement>();
  // SIMD-0189: the first segment starts right after the program headers, each next one right after
  // the previous one, at offsets and with sizes that are multiples of 8.
  const headersEnd = ELF_HEADER_SIZE + V3_PROGRAM_HEADER_COUNT * PROGRAM_HEADER_SIZE;
  const hasReadOnlyData = readOnlyData.some((section) => section.size > 0);
  const rodata = mergeSections(
    ".rodata",
    readOnlyData,
    {
      fileOffset: headersEnd,
      vaddr: SBPF_V3_RODATA_VADDR,
      reserved: hasReadOnlyData ? V3_RODATA_NULL_GUARD : 0,
      sizeMultiple: SBPF_INSTRUCTION_SIZE,
    },
    1,
    placements,
  );
  const text = mergeSections(
    ".text",
    code,
    {
      fileOffset: rodata.fileOffset + rodata.bytes.length,
      vaddr: SBPF_PROGRAM_VADDR,
      reserved: 0,
      sizeMultiple: SBPF_INSTRUCTION_SIZE,
    },
    SBPF_INSTRUCTION_SIZE,
    placements,
  );
  return { version: 3, text, rodata, placements };
}

export function layOutProgram(elf: ElfFile, version: SbpfVersion): ProgramLayout {
  const { code, readOnlyData } = sortInputSections(elf);
  return version === 0 ? layOutV0(code, readOnlyData) : layOutV3(code, readOnlyData);
}
