import {
  DYNAMIC_ENTRY_SIZE,
  ProgramHeaderFlag,
  ProgramHeaderType,
  REL_ENTRY_SIZE,
  SectionFlag,
  SectionType,
  SYMBOL_SIZE,
} from "./elf-constants.js";
import type { DynamicTables } from "./dynamic-tables.js";
import {
  loadedSection,
  writeElf,
  type PlacedBytes,
  type ProgramHeader,
  type SectionHeader,
} from "./elf-writer.js";
import type { OutputSection } from "./layout.js";

/**
 * The SBPF v0 shared object. Every loaded section keeps sh_addr == sh_offset, sections appear in
 * ascending file order and segments in ascending address order: the checks the BPF upgradeable
 * loader applies when a v0 program is deployed. PT_DYNAMIC leads the loader to the syscall
 * relocations.
 */

export interface SharedObjectParts {
  text: OutputSection;
  rodata: OutputSection;
  tables: DynamicTables;
  /** File offset of the entrypoint's first instruction. */
  entryFileOffset: number;
}

/** A v0 section is addressed by its file offset. */
function atFileOffset(name: string, type: number, flags: number, placed: PlacedBytes, addralign: number) {
  return loadedSection(name, type, flags, placed, BigInt(placed.fileOffset), addralign);
}

function describeSections({ text, rodata, tables }: SharedObjectParts): SectionHeader[] {
  const sections: SectionHeader[] = [
    atFileOffset(".text", SectionType.PROGBITS, SectionFlag.ALLOC | SectionFlag.EXECINSTR, text, 8),
  ];
  if (rodata.bytes.length > 0) {
    sections.push(atFileOffset(".rodata", SectionType.PROGBITS, SectionFlag.ALLOC, rodata, rodata.alignment));
  }
  // Section indexes count the null section that writeElf puts first.
  const dynsymIndex = sections.length + 2;
  const dynstrIndex = sections.length + 3;
  sections.push(
    {
      ...atFileOffset(
        ".dynamic",
        SectionType.DYNAMIC,
        SectionFlag.ALLOC | SectionFlag.WRITE,
        tables.dynamic,
        8,
      ),
      link: dynstrIndex,
      entsize: DYNAMIC_ENTRY_SIZE,
    },
    // sh_info of a symbol table is one past the last local symbol: only the null symbol is local.
    {
      ...atFileOffset(".dynsym", SectionType.DYNSYM, SectionFlag.ALLOC, tables.dynsym, 8),
      link: dynstrIndex,
      info: 1,
      entsize: SYMBOL_SIZE,
    },
    atFileOffset(".dynstr", SectionType.STRTAB, SectionFlag.ALLOC, tables.dynstr, 1),
  );
  if (tables.relDyn) {
    sections.push({
      ...atFileOffset(".rel.dyn", SectionType.REL, SectionFlag.ALLOC, tables.relDyn, 8),
      link: dynsymIndex,
      entsize: REL_ENTRY_SIZE,
    });
  }
  return sections;
}

function describeProgramHeaders({ text, rodata, tables }: SharedObjectParts): ProgramHeader[] {
  const segment = (type: number, flags: number, fileOffset: number, size: number): ProgramHeader => ({
    type,
    flags,
    fileOffset,
    vaddr: BigInt(fileOffset),
    size,
  });
  const readOnlyStart = rodata.bytes.length > 0 ? rodata.fileOffset : tables.dynamic.fileOffset;
  return [
    segment(
      ProgramHeaderType.LOAD,
      ProgramHeaderFlag.R | ProgramHeaderFlag.X,
      text.fileOffset,
      text.bytes.length,
    ),
    segment(ProgramHeaderType.LOAD, ProgramHeaderFlag.R, readOnlyStart, tables.end - readOnlyStart),
    segment(
      ProgramHeaderType.DYNAMIC,
      ProgramHeaderFlag.R | ProgramHeaderFlag.W,
      tables.dynamic.fileOffset,
      tables.dynamic.bytes.length,
    ),
  ];
}

export function writeSharedObjectV0(parts: SharedObjectParts): Uint8Array {
  return writeElf({
    version: 0,
    entry: BigInt(parts.entryFileOffset),
    programHeaders: describeProgramHeaders(parts),
    sections: describeSections(parts),
    end: parts.tables.end,
  });
}
