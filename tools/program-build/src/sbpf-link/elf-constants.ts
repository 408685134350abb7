/** Numbers from the ELF specification and LLVM's BPF backend, named as those documents name them. */

export const ELF_MAGIC = Uint8Array.of(0x7f, 0x45, 0x4c, 0x46);
export const ELFCLASS64 = 2;
export const ELFDATA2LSB = 1;
export const EV_CURRENT = 1;
export const ELFOSABI_NONE = 0;

export const ElfType = { REL: 1, DYN: 3 } as const;
export const EM_BPF = 247;

export const SectionType = {
  NULL: 0,
  PROGBITS: 1,
  SYMTAB: 2,
  STRTAB: 3,
  RELA: 4,
  DYNAMIC: 6,
  NOBITS: 8,
  REL: 9,
  DYNSYM: 11,
} as const;

export const SectionFlag = { WRITE: 0x1, ALLOC: 0x2, EXECINSTR: 0x4 } as const;

export const SpecialSectionIndex = { UNDEF: 0, ABS: 0xfff1, COMMON: 0xfff2 } as const;

export const SymbolBinding = { LOCAL: 0, GLOBAL: 1 } as const;
export const SymbolType = { NOTYPE: 0, OBJECT: 1, FUNC: 2, SECTION: 3 } as const;

export const ProgramHeaderType = { LOAD: 1, DYNAMIC: 2 } as const;
export const ProgramHeaderFlag = { X: 0x1, W: 0x2, R: 0x4 } as const;

export const DynamicTag = {
  NULL: 0,
  STRTAB: 5,
  SYMTAB: 6,
  STRSZ: 10,
  SYMENT: 11,
  REL: 17,
  RELSZ: 18,
  RELENT: 19,
} as const;

export const BpfRelocation = {
  NONE: 0,
  /** lddw: the 64-bit address is split over the immediates of both instruction slots. */
  R_BPF_64_64: 1,
  /** A 64-bit address stored in data. */
  R_BPF_64_ABS64: 2,
  R_BPF_64_ABS32: 3,
  R_BPF_64_NODYLD32: 4,
  R_BPF_64_RELATIVE: 8,
  /** call: the 32-bit immediate of a call instruction. */
  R_BPF_64_32: 10,
} as const;

export const ELF_HEADER_SIZE = 64;
export const PROGRAM_HEADER_SIZE = 56;
export const SECTION_HEADER_SIZE = 64;
export const SYMBOL_SIZE = 24;
export const REL_ENTRY_SIZE = 16;
export const DYNAMIC_ENTRY_SIZE = 16;

/**
 * SBPF v0 maps the whole file (code and read-only data) at this address, at its file offsets;
 * v3 maps only the bytecode segment here.
 */
export const SBPF_PROGRAM_VADDR = 0x1_0000_0000n;
/** SBPF v3 maps the read-only data segment at address 0 (SIMD-0189). */
export const SBPF_V3_RODATA_VADDR = 0n;
export const SBPF_INSTRUCTION_SIZE = 8;
