import { ProgramHeaderFlag, ProgramHeaderType, SectionFlag, SectionType } from "./elf-constants.js";
import { loadedSection, writeElf, type ProgramHeader } from "./elf-writer.js";
import type { OutputSection } from "./layout.js";

/**
 * The SBPF v3 program in the strict layout of SIMD-0189, which the v3 loader parses by its program
 * headers alone: e_phoff 64; header 0 maps read-only data (PF_R) at address 0, header 1 the
 * bytecode (PF_X) at 0x1_0000_0000; each segment starts where the previous one ends, at an 8-byte
 * aligned offset, with p_filesz == p_memsz a multiple of 8; e_entry is the entrypoint's address.
 * No PT_DYNAMIC, no dynamic symbols, no relocations: the layout already holds every address and
 * every syscall hash. Section headers are not read by the loader; they are there for tools
 * (llvm-objdump, readelf).
 */

export interface StrictProgramParts {
  text: OutputSection;
  rodata: OutputSection;
  /** Offset of the entrypoint's first instruction inside the bytecode. */
  entryTextOffset: number;
}

function segment(flags: number, output: OutputSection): ProgramHeader {
  return {
    type: ProgramHeaderType.LOAD,
    flags,
    fileOffset: output.fileOffset,
    vaddr: output.vaddr,
    size: output.bytes.length,
  };
}

export function writeStrictProgramV3({ text, rodata, entryTextOffset }: StrictProgramParts): Uint8Array {
  return writeElf({
    version: 3,
    entry: text.vaddr + BigInt(entryTextOffset),
    programHeaders: [segment(ProgramHeaderFlag.R, rodata), segment(ProgramHeaderFlag.X, text)],
    sections: [
      loadedSection(
        ".rodata",
        SectionType.PROGBITS,
        SectionFlag.ALLOC,
        rodata,
        rodata.vaddr,
        rodata.alignment,
      ),
      loadedSection(
        ".text",
        SectionType.PROGBITS,
        SectionFlag.ALLOC | SectionFlag.EXECINSTR,
        text,
        text.vaddr,
        8,
      ),
    ],
    end: text.fileOffset + text.bytes.length,
  });
}
