import { alignUp } from "./byte-io.js";
import {
  ELF_HEADER_SIZE,
  PROGRAM_HEADER_SIZE,
  SBPF_INSTRUCTION_SIZE,
  SectionFlag,
  SectionType,
} from "./elf-constants.js";
import type { ElfFile, ElfSection } from "./elf-reader.js";
import { SbpfLinkError } from "./errors.js";

/**
 * Where every loaded input section lands in the output. The loader maps the file at
 * 0x1_0000_0000 + file offset, so a file offset is also the section's address (sh_addr == sh_offset).
 */

export type OutputSectionName = ".text" | ".rodata";

export interface OutputSection {
  name: OutputSectionName;
  fileOffset: number;
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
  text: OutputSection;
  rodata: OutputSection;
  /** Input section index -> placement, for every section that is part of the program image. */
  placements: Map<number, Placement>;
}

/** Two PT_LOAD segments (code, read-only data + dynamic tables) and PT_DYNAMIC. */
export const PROGRAM_HEADER_COUNT = 3;

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

function mergeSections(
  name: OutputSectionName,
  inputs: ElfSection[],
  startOffset: number,
  minimumInputAlignment: number,
  placements: Map<number, Placement>,
): OutputSection {
  // Starting every output section on an instruction boundary keeps both segments 8-byte aligned.
  const alignment = inputs.reduce((max, s) => Math.max(max, s.addralign), SBPF_INSTRUCTION_SIZE);
  const fileOffset = alignUp(startOffset, alignment);
  const offsets: number[] = [];
  let end = fileOffset;
  for (const input of inputs) {
    const at = alignUp(end, Math.max(input.addralign, minimumInputAlignment));
    offsets.push(at);
    end = at + input.size;
  }
  const output: OutputSection = {
    name,
    fileOffset,
    alignment,
    bytes: new Uint8Array(end - fileOffset),
    inputs,
  };
  inputs.forEach((input, i) => {
    const at = offsets[i] ?? fileOffset;
    output.bytes.set(input.data, at - fileOffset);
    placements.set(input.index, { output, fileOffset: at });
  });
  return output;
}

export function layOutProgram(elf: ElfFile): ProgramLayout {
  const code: ElfSection[] = [];
  const readOnlyData: ElfSection[] = [];
  for (const section of elf.sections) {
    const role = classifyInputSection(section);
    if (role === "code") code.push(section);
    else if (role === "read-only data") readOnlyData.push(section);
  }
  const placements = new Map<number, Placement>();
  const headersEnd = ELF_HEADER_SIZE + PROGRAM_HEADER_COUNT * PROGRAM_HEADER_SIZE;
  const text = mergeSections(".text", code, headersEnd, SBPF_INSTRUCTION_SIZE, placements);
  const rodata = mergeSections(".rodata", readOnlyData, text.fileOffset + text.bytes.length, 1, placements);
  return { text, rodata, placements };
}
