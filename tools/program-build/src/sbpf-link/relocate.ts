import { readU32, readU64, writeI32, writeU32, writeU64 } from "./byte-io.js";
import {
  BpfRelocation,
  SBPF_INSTRUCTION_SIZE,
  SectionType,
  SpecialSectionIndex,
  SymbolType,
} from "./elf-constants.js";
import {
  readRelocations,
  relocatedSection,
  type ElfFile,
  type ElfRelocation,
  type ElfSection,
  type ElfSymbol,
} from "./elf-reader.js";
import { SbpfLinkError } from "./errors.js";
import { isCallInstruction, isLoadDoubleWord, readImmediate, writeSourceRegister } from "./instructions.js";
import { addressOf, type Placement, type ProgramLayout } from "./layout.js";
import { syscallHash } from "./syscalls.js";

/**
 * Applies the object's relocations to the laid-out program. Addresses are final here (the layout
 * gives each byte its VM address). v0 leaves syscalls for the loader to resolve by name; v3 calls
 * them by hash and leaves the loader nothing to do.
 */

export interface SyscallCallSite {
  /** File offset of the `call` instruction. */
  fileOffset: number;
  name: string;
}

/** `call` source register in v3 (SIMD-0178): 0 calls a syscall by hash, 1 a function pc-relatively. */
const SYSCALL_SOURCE = 0;
const INTERNAL_CALL_SOURCE = 1;

export interface RelocationOutcome {
  syscallCallSites: SyscallCallSite[];
  internalCalls: number;
  resolvedAddresses: number;
}

interface RelocationSite {
  section: ElfSection;
  relocation: ElfRelocation;
  symbol: ElfSymbol;
  placement: Placement;
  /** File offset of the relocated bytes. */
  fileOffset: number;
  /** The same position inside the output section's bytes. */
  outputOffset: number;
}

interface RelocationContext {
  elf: ElfFile;
  layout: ProgramLayout;
  allowedSyscalls: ReadonlySet<string>;
  outcome: RelocationOutcome;
}

function symbolDisplayName(elf: ElfFile, symbol: ElfSymbol): string {
  if (symbol.name !== "") return symbol.name;
  if (symbol.type === SymbolType.SECTION) return elf.sections[symbol.sectionIndex]?.name ?? "<section>";
  return `<symbol ${symbol.index}>`;
}

interface SymbolLocation {
  placement: Placement;
  /** File offset of the symbol in the output. */
  fileOffset: number;
}

/** Where the symbol is in the output, or undefined for an undefined (external) symbol. */
function locateSymbol(elf: ElfFile, layout: ProgramLayout, symbol: ElfSymbol): SymbolLocation | undefined {
  const name = symbolDisplayName(elf, symbol);
  switch (symbol.sectionIndex) {
    case SpecialSectionIndex.UNDEF:
      return undefined;
    case SpecialSectionIndex.COMMON:
      throw new SbpfLinkError("SBPF_LINK__WRITABLE_SECTION", { section: `COMMON (symbol ${name})` });
    case SpecialSectionIndex.ABS:
      throw new SbpfLinkError("SBPF_LINK__SYMBOL_OUTSIDE_PROGRAM", { symbol: name, section: "ABS" });
  }
  const placement = layout.placements.get(symbol.sectionIndex);
  if (placement === undefined) {
    const section = elf.sections[symbol.sectionIndex]?.name ?? `#${symbol.sectionIndex}`;
    throw new SbpfLinkError("SBPF_LINK__SYMBOL_OUTSIDE_PROGRAM", { symbol: name, section });
  }
  return { placement, fileOffset: placement.fileOffset + symbol.value };
}

function unsupported(site: RelocationSite, elf: ElfFile): SbpfLinkError {
  return new SbpfLinkError("SBPF_LINK__UNSUPPORTED_RELOCATION", {
    section: site.section.name,
    offset: site.relocation.offset,
    relocationType: site.relocation.type,
    symbol: symbolDisplayName(elf, site.symbol),
  });
}

/**
 * A call to an undefined symbol is a syscall. v0: `call -1`, which the loader patches with the
 * hash of the name through a dynamic relocation. v3: `call <hash>` with source register 0.
 */
function resolveSyscall(site: RelocationSite, context: RelocationContext): void {
  const name = site.symbol.name;
  if (!context.allowedSyscalls.has(name)) {
    throw new SbpfLinkError("SBPF_LINK__UNKNOWN_SYSCALL", {
      name,
      section: site.section.name,
      offset: site.relocation.offset,
    });
  }
  const bytes = site.placement.output.bytes;
  if (context.layout.version === 0) {
    writeI32(bytes, site.outputOffset + 4, -1);
  } else {
    writeSourceRegister(bytes, site.outputOffset, SYSCALL_SOURCE);
    writeU32(bytes, site.outputOffset + 4, syscallHash(name));
  }
  context.outcome.syscallCallSites.push({ fileOffset: site.fileOffset, name });
}

/** `call sym`: syscalls by name or hash, internal calls pc-relative (target = pc + 1 + imm). */
function resolveCall(site: RelocationSite, context: RelocationContext): void {
  const { elf, layout, outcome } = context;
  const bytes = site.placement.output.bytes;
  if (site.placement.output !== layout.text || !isCallInstruction(bytes, site.outputOffset)) {
    throw unsupported(site, elf);
  }
  const target = locateSymbol(elf, layout, site.symbol)?.fileOffset;
  if (target === undefined) return resolveSyscall(site, context);
  // LLVM encodes the callee as (instruction index within the symbol) - 1.
  const destination = target + (readImmediate(bytes, site.outputOffset) + 1) * SBPF_INSTRUCTION_SIZE;
  const textStart = layout.text.fileOffset;
  if (destination < textStart || destination >= textStart + layout.text.bytes.length) {
    throw new SbpfLinkError("SBPF_LINK__CALL_TARGET_OUTSIDE_TEXT", {
      symbol: symbolDisplayName(elf, site.symbol),
      section: site.section.name,
      offset: site.relocation.offset,
    });
  }
  // v0's loader treats every call immediate other than -1 as pc-relative; v3 needs source 1 as well.
  const relative = (destination - site.fileOffset) / SBPF_INSTRUCTION_SIZE - 1;
  writeI32(bytes, site.outputOffset + 4, relative);
  if (layout.version === 3) writeSourceRegister(bytes, site.outputOffset, INTERNAL_CALL_SOURCE);
  outcome.internalCalls += 1;
}

/** The VM address of a relocation's symbol plus `addend`. */
function targetAddress(site: RelocationSite, context: RelocationContext, addend: bigint): bigint {
  const target = locateSymbol(context.elf, context.layout, site.symbol);
  if (target === undefined) {
    throw new SbpfLinkError("SBPF_LINK__UNDEFINED_SYMBOL", {
      symbol: symbolDisplayName(context.elf, site.symbol),
      section: site.section.name,
      offset: site.relocation.offset,
    });
  }
  return addressOf(target.placement, site.symbol.value) + addend;
}

/** `lddw rX, sym`: the full address, split over both instruction slots' immediates. */
function resolveLoadDoubleWord(site: RelocationSite, context: RelocationContext): void {
  const bytes = site.placement.output.bytes;
  if (!isLoadDoubleWord(bytes, site.outputOffset)) throw unsupported(site, context.elf);
  const addend = BigInt(readU32(bytes, site.outputOffset + 4));
  const address = targetAddress(site, context, addend);
  writeU32(bytes, site.outputOffset + 4, Number(address & 0xffff_ffffn));
  writeU32(bytes, site.outputOffset + SBPF_INSTRUCTION_SIZE + 4, Number(address >> 32n));
  context.outcome.resolvedAddresses += 1;
}

/** A pointer stored in read-only data (vtables, tables of function pointers, &str constants). */
function resolveDataPointer(site: RelocationSite, context: RelocationContext): void {
  const bytes = site.placement.output.bytes;
  const addend = readU64(bytes, site.outputOffset);
  writeU64(bytes, site.outputOffset, targetAddress(site, context, addend));
  context.outcome.resolvedAddresses += 1;
}

function applyRelocation(site: RelocationSite, context: RelocationContext): void {
  switch (site.relocation.type) {
    case BpfRelocation.NONE:
      return;
    case BpfRelocation.R_BPF_64_32:
      return resolveCall(site, context);
    case BpfRelocation.R_BPF_64_64:
      return resolveLoadDoubleWord(site, context);
    case BpfRelocation.R_BPF_64_ABS64:
      return resolveDataPointer(site, context);
    default:
      throw unsupported(site, context.elf);
  }
}

function relocationSite(
  context: RelocationContext,
  section: ElfSection,
  placement: Placement,
  symbols: ElfSymbol[],
  relocation: ElfRelocation,
): RelocationSite {
  const symbol = symbols[relocation.symbolIndex];
  // Every relocation this linker applies rewrites (part of) one 8-byte instruction or pointer.
  if (symbol === undefined || relocation.offset + 8 > section.size) {
    throw new SbpfLinkError("SBPF_LINK__MALFORMED_OBJECT", {
      reason: `relocation at ${section.name}+0x${relocation.offset.toString(16)} is out of range`,
    });
  }
  const fileOffset = placement.fileOffset + relocation.offset;
  return {
    section,
    relocation,
    symbol,
    placement,
    fileOffset,
    outputOffset: fileOffset - placement.output.fileOffset,
  };
}

export function applyRelocations(
  elf: ElfFile,
  symbols: ElfSymbol[],
  layout: ProgramLayout,
  allowedSyscalls: ReadonlySet<string>,
): RelocationOutcome {
  const outcome: RelocationOutcome = { syscallCallSites: [], internalCalls: 0, resolvedAddresses: 0 };
  const context: RelocationContext = { elf, layout, allowedSyscalls, outcome };
  for (const relocationSection of elf.sections) {
    if (relocationSection.type !== SectionType.REL && relocationSection.type !== SectionType.RELA) continue;
    const target = relocatedSection(elf, relocationSection);
    const placement = layout.placements.get(target.index);
    // Relocations of debug info and BTF concern sections that are not part of the program.
    if (placement === undefined) continue;
    if (relocationSection.type === SectionType.RELA) {
      throw new SbpfLinkError("SBPF_LINK__NOT_A_BPF_OBJECT", {
        reason: `${relocationSection.name} holds relocations with addends (SHT_RELA); BPF objects use SHT_REL`,
      });
    }
    for (const relocation of readRelocations(relocationSection)) {
      applyRelocation(relocationSite(context, target, placement, symbols, relocation), context);
    }
  }
  return outcome;
}
