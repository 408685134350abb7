import {
  findSection,
  readElf,
  readRelocations,
  readSymbols,
  type ElfFile,
  type ElfSection,
} from "../../sbpf-link/elf-reader.js";

/** Read-side helpers to inspect a linked program the way the loader does. */

export interface Instruction {
  /** File offset of the instruction. */
  fileOffset: number;
  opcode: number;
  registers: number;
  immediate: number;
}

export function requireSection(elf: ElfFile, name: string): ElfSection {
  const section = findSection(elf, name);
  if (!section) throw new Error(`no ${name} section`);
  return section;
}

export function textInstructions(program: Uint8Array): Instruction[] {
  const text = requireSection(readElf(program), ".text");
  const view = new DataView(text.data.buffer, text.data.byteOffset, text.data.byteLength);
  const instructions: Instruction[] = [];
  for (let at = 0; at < text.size; at += 8) {
    instructions.push({
      fileOffset: text.offset + at,
      opcode: view.getUint8(at),
      registers: view.getUint8(at + 1),
      immediate: view.getInt32(at + 4, true),
    });
  }
  return instructions;
}

export function lddwAddress(program: Uint8Array, fileOffset: number): bigint {
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const low = BigInt(view.getUint32(fileOffset + 4, true));
  const high = BigInt(view.getUint32(fileOffset + 12, true));
  return (high << 32n) | low;
}

export interface DynamicRelocation {
  offset: number;
  type: number;
  symbolName: string;
}

export function dynamicRelocations(program: Uint8Array): DynamicRelocation[] {
  const elf = readElf(program);
  const relDyn = findSection(elf, ".rel.dyn");
  if (!relDyn) return [];
  const symbols = readSymbols(elf, requireSection(elf, ".dynsym"));
  return readRelocations(relDyn).map((relocation) => ({
    offset: relocation.offset,
    type: relocation.type,
    symbolName: symbols[relocation.symbolIndex]?.name ?? "<missing>",
  }));
}

export interface LoadedSegment {
  fileOffset: number;
  vaddr: bigint;
  bytes: Uint8Array;
}

/** SBPF v3's two segments, found the way its loader finds them: by program header, not section. */
export function strictSegments(program: Uint8Array): { rodata: LoadedSegment; bytecode: LoadedSegment } {
  const [rodata, bytecode] = readElf(program).programHeaders.map((header) => ({
    fileOffset: header.offset,
    vaddr: BigInt(header.vaddr),
    bytes: program.subarray(header.offset, header.offset + header.filesz),
  }));
  if (!rodata || !bytecode) throw new Error("expected two program headers");
  return { rodata, bytecode };
}

/** The instructions of v3's bytecode segment; `index` counts 8-byte slots from its start. */
export function bytecodeInstructions(
  program: Uint8Array,
): Array<Instruction & { index: number; source: number }> {
  const { bytecode } = strictSegments(program);
  const view = new DataView(bytecode.bytes.buffer, bytecode.bytes.byteOffset, bytecode.bytes.byteLength);
  return Array.from({ length: bytecode.bytes.length / 8 }, (_, index) => ({
    index,
    fileOffset: bytecode.fileOffset + index * 8,
    opcode: view.getUint8(index * 8),
    registers: view.getUint8(index * 8 + 1),
    source: view.getUint8(index * 8 + 1) >> 4,
    immediate: view.getInt32(index * 8 + 4, true),
  }));
}
