import { buildDynamicTables } from "./dynamic-tables.js";
import { EM_BPF, ElfType, SectionFlag, SectionType } from "./elf-constants.js";
import { readElf, readSymbols, type ElfFile, type ElfSymbol } from "./elf-reader.js";
import { writeSharedObject } from "./elf-writer.js";
import { SbpfLinkError } from "./errors.js";
import { checkAndPatchInstructions } from "./instructions.js";
import { layOutProgram, type ProgramLayout } from "./layout.js";
import { applyRelocations } from "./relocate.js";
import { SOLANA_SYSCALLS } from "./syscalls.js";

export interface SbpfLinkOptions {
  /** The exported function the loader starts at. Default: `entrypoint`. */
  entrypoint?: string;
  /** Undefined symbols a call may target. Default: the syscalls the Solana runtime registers. */
  allowedSyscalls?: ReadonlySet<string>;
}

export interface SbpfLinkReport {
  programBytes: number;
  textBytes: number;
  rodataBytes: number;
  /** Input sections merged into `.text` and `.rodata`, in output order. */
  textInputs: string[];
  rodataInputs: string[];
  /** Syscall names in `.dynsym` order. */
  syscalls: string[];
  syscallCallSites: number;
  internalCallsRelocated: number;
  addressesResolved: number;
  callxPatched: number;
}

export interface SbpfLinkResult {
  program: Uint8Array;
  report: SbpfLinkReport;
}

function assertRelocatableBpfObject(elf: ElfFile): void {
  if (elf.type !== ElfType.REL) {
    throw new SbpfLinkError("SBPF_LINK__NOT_A_BPF_OBJECT", { reason: `e_type is ${elf.type}, not ET_REL` });
  }
  if (elf.machine !== EM_BPF) {
    throw new SbpfLinkError("SBPF_LINK__NOT_A_BPF_OBJECT", {
      reason: `e_machine is ${elf.machine}, not EM_BPF (${EM_BPF})`,
    });
  }
}

function readObjectSymbols(elf: ElfFile): ElfSymbol[] {
  const symbolTable = elf.sections.find((section) => section.type === SectionType.SYMTAB);
  return symbolTable ? readSymbols(elf, symbolTable) : [];
}

function checkCode(layout: ProgramLayout): number {
  let callxPatched = 0;
  for (const input of layout.text.inputs) {
    const placement = layout.placements.get(input.index);
    if (placement === undefined) continue;
    const start = placement.fileOffset - layout.text.fileOffset;
    callxPatched += checkAndPatchInstructions({
      text: layout.text.bytes,
      start,
      end: start + input.size,
      sectionName: input.name,
    });
  }
  return callxPatched;
}

function findEntrypoint(elf: ElfFile, symbols: ElfSymbol[], layout: ProgramLayout, name: string): number {
  for (const symbol of symbols) {
    if (symbol.name !== name) continue;
    const section = elf.sections[symbol.sectionIndex];
    const placement = layout.placements.get(symbol.sectionIndex);
    if (section && placement && (section.flags & SectionFlag.EXECINSTR) !== 0) {
      return placement.fileOffset + symbol.value;
    }
  }
  throw new SbpfLinkError("SBPF_LINK__MISSING_ENTRYPOINT", { entrypoint: name });
}

/**
 * Turns the ET_REL object of `llc -march=bpfel -mcpu=v2 -filetype=obj` into the SBPF v0 ET_DYN
 * shared object Solana's loaders accept. Pure and deterministic: same object in, same bytes out.
 */
export function linkSbpfProgram(object: Uint8Array, options: SbpfLinkOptions = {}): SbpfLinkResult {
  const entrypoint = options.entrypoint ?? "entrypoint";
  const elf = readElf(object);
  assertRelocatableBpfObject(elf);
  const symbols = readObjectSymbols(elf);
  const layout = layOutProgram(elf);
  const callxPatched = checkCode(layout);
  const entryFileOffset = findEntrypoint(elf, symbols, layout, entrypoint);
  const relocations = applyRelocations(elf, symbols, layout, options.allowedSyscalls ?? SOLANA_SYSCALLS);
  const readOnlyEnd = layout.rodata.fileOffset + layout.rodata.bytes.length;
  const tables = buildDynamicTables(relocations.syscallCallSites, readOnlyEnd);
  const program = writeSharedObject({ text: layout.text, rodata: layout.rodata, tables, entryFileOffset });
  return {
    program,
    report: {
      programBytes: program.length,
      textBytes: layout.text.bytes.length,
      rodataBytes: layout.rodata.bytes.length,
      textInputs: layout.text.inputs.map((section) => section.name),
      rodataInputs: layout.rodata.inputs.map((section) => section.name),
      syscalls: tables.syscalls,
      syscallCallSites: relocations.syscallCallSites.length,
      internalCallsRelocated: relocations.internalCalls,
      addressesResolved: relocations.resolvedAddresses,
      callxPatched,
    },
  };
}
