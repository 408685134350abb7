import { buildDynamicTables } from "./dynamic-tables.js";
import {
  EM_BPF,
  ElfType,
  SBPF_INSTRUCTION_SIZE,
  SectionFlag,
  SectionType,
  SymbolType,
} from "./elf-constants.js";
import { readElf, readSymbols, type ElfFile, type ElfSymbol } from "./elf-reader.js";
import { SbpfLinkError } from "./errors.js";
import { checkAndPatchInstructions } from "./instructions.js";
import { layOutProgram, type ProgramLayout } from "./layout.js";
import { applyRelocations } from "./relocate.js";
import { DEFAULT_SBPF_VERSION, type SbpfVersion } from "./sbpf-version.js";
import { writeSharedObjectV0 } from "./shared-object-v0.js";
import { writeStrictProgramV3 } from "./strict-program-v3.js";
import { SOLANA_SYSCALLS, syscallHash } from "./syscalls.js";
import { findVerifierViolation } from "./verifier.js";

export interface SbpfLinkOptions {
  /** The exported function the loader starts at. Default: `entrypoint`. */
  entrypoint?: string;
  /** Undefined symbols a call may target. Default: the syscalls the Solana runtime registers. */
  allowedSyscalls?: ReadonlySet<string>;
  /** The SBPF version to emit. Default: DEFAULT_SBPF_VERSION (3). */
  sbpfVersion?: SbpfVersion;
}

export interface SbpfLinkReport {
  sbpfVersion: SbpfVersion;
  programBytes: number;
  textBytes: number;
  rodataBytes: number;
  /** Input sections merged into `.text` and `.rodata`, in output order. */
  textInputs: string[];
  rodataInputs: string[];
  /** Syscall names in order of first use (v0: also `.dynsym` order). */
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

function translateInstructions(layout: ProgramLayout): number {
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
      version: layout.version,
    });
  }
  return callxPatched;
}

/** Offset in the merged .text of a symbol defined in a code section, or undefined if it is not code. */
function textOffsetOf(elf: ElfFile, layout: ProgramLayout, symbol: ElfSymbol): number | undefined {
  const section = elf.sections[symbol.sectionIndex];
  const placement = layout.placements.get(symbol.sectionIndex);
  if (!section || !placement || (section.flags & SectionFlag.EXECINSTR) === 0) return undefined;
  return placement.fileOffset - layout.text.fileOffset + symbol.value;
}

function findEntrypoint(elf: ElfFile, symbols: ElfSymbol[], layout: ProgramLayout, name: string): number {
  for (const symbol of symbols) {
    if (symbol.name !== name) continue;
    const offset = textOffsetOf(elf, layout, symbol);
    if (offset !== undefined) return offset;
  }
  throw new SbpfLinkError("SBPF_LINK__MISSING_ENTRYPOINT", { entrypoint: name });
}

/** Instruction indexes of every named code symbol: functions, and labels a call may target. */
function functionStarts(elf: ElfFile, symbols: ElfSymbol[], layout: ProgramLayout): Set<number> {
  const starts = new Set<number>();
  for (const symbol of symbols) {
    if (symbol.name === "" || symbol.type === SymbolType.SECTION) continue;
    const offset = textOffsetOf(elf, layout, symbol);
    if (offset !== undefined) starts.add(offset / SBPF_INSTRUCTION_SIZE);
  }
  return starts;
}

/** The input section (and offset in it) that holds a byte of the merged .text. */
function inputAt(layout: ProgramLayout, textOffset: number): { section: string; offset: number } {
  for (const input of layout.text.inputs) {
    const start = (layout.placements.get(input.index)?.fileOffset ?? 0) - layout.text.fileOffset;
    if (textOffset >= start && textOffset < start + input.size) {
      return { section: input.name, offset: textOffset - start };
    }
  }
  return { section: ".text", offset: textOffset };
}

function verifyBytecode(
  layout: ProgramLayout,
  starts: Set<number>,
  allowedSyscalls: ReadonlySet<string>,
): void {
  const violation = findVerifierViolation(layout.text.bytes, {
    version: layout.version,
    functionStarts: starts,
    syscallHashes: new Set([...allowedSyscalls].map(syscallHash)),
  });
  if (violation === undefined) return;
  throw new SbpfLinkError("SBPF_LINK__VERIFIER_REJECTED", {
    ...inputAt(layout, violation.instructionIndex * SBPF_INSTRUCTION_SIZE),
    rule: violation.rule,
    opcode: violation.opcode,
    detail: violation.detail,
    version: layout.version,
  });
}

/**
 * Turns the ET_REL object of `llc -march=bpfel -mcpu=v2 -filetype=obj` into an SBPF program the
 * loaders accept: by default the v3 program of SIMD-0178/0189, or the v0 shared object. Pure and
 * deterministic: same object and options in, same bytes out.
 */
export function linkSbpfProgram(object: Uint8Array, options: SbpfLinkOptions = {}): SbpfLinkResult {
  const entrypoint = options.entrypoint ?? "entrypoint";
  const version = options.sbpfVersion ?? DEFAULT_SBPF_VERSION;
  const allowedSyscalls = options.allowedSyscalls ?? SOLANA_SYSCALLS;
  const elf = readElf(object);
  assertRelocatableBpfObject(elf);
  const symbols = readObjectSymbols(elf);
  const layout = layOutProgram(elf, version);
  const callxPatched = translateInstructions(layout);
  const entryTextOffset = findEntrypoint(elf, symbols, layout, entrypoint);
  const relocations = applyRelocations(elf, symbols, layout, allowedSyscalls);
  verifyBytecode(
    layout,
    functionStarts(elf, symbols, layout).add(entryTextOffset / SBPF_INSTRUCTION_SIZE),
    allowedSyscalls,
  );

  const syscalls = [...new Set(relocations.syscallCallSites.map((site) => site.name))];
  const { text, rodata } = layout;
  const program =
    version === 0
      ? writeSharedObjectV0({
          text,
          rodata,
          tables: buildDynamicTables(relocations.syscallCallSites, rodata.fileOffset + rodata.bytes.length),
          entryFileOffset: text.fileOffset + entryTextOffset,
        })
      : writeStrictProgramV3({ text, rodata, entryTextOffset });
  return {
    program,
    report: {
      sbpfVersion: version,
      programBytes: program.length,
      textBytes: text.bytes.length,
      rodataBytes: rodata.bytes.length,
      textInputs: text.inputs.map((section) => section.name),
      rodataInputs: rodata.inputs.map((section) => section.name),
      syscalls,
      syscallCallSites: relocations.syscallCallSites.length,
      internalCallsRelocated: relocations.internalCalls,
      addressesResolved: relocations.resolvedAddresses,
      callxPatched,
    },
  };
}
