import { readI32, readU16, writeI32, writeU8 } from "./byte-io.js";
import { SBPF_INSTRUCTION_SIZE } from "./elf-constants.js";
import { SbpfLinkError } from "./errors.js";
import type { SbpfVersion } from "./sbpf-version.js";

/**
 * Instruction-level translation of LLVM's output: LLVM's BPF backend targets the Linux eBPF ISA,
 * and SBPF is a different dialect. Instructions SBPF lacks, or runs with other semantics, are
 * refused here, at build time, instead of failing (or silently computing something else) on chain.
 */

export const Opcode = {
  LDDW: 0x18,
  CALL: 0x85,
  CALLX: 0x8d,
  EXIT: 0x95,
  MOV32_IMM: 0xb4,
  LE: 0xd4,
  BE: 0xdc,
} as const;

const InstructionClass = { ALU32: 0x04, ALU64: 0x07 } as const;

// prettier-ignore
/** Instructions SBPF v0 and v3 both run exactly as eBPF defines them. */
const SHARED_WITH_EBPF: ReadonlySet<number> = new Set([
  Opcode.LDDW,
  0x61, 0x69, 0x71, 0x79, // ldx{w,h,b,dw}
  0x62, 0x6a, 0x72, 0x7a, // st{w,h,b,dw} immediate
  0x63, 0x6b, 0x73, 0x7b, // stx{w,h,b,dw}
  // 64-bit ALU: add sub mul div or and lsh rsh neg mod xor mov arsh (immediate and register forms)
  0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x67, 0x6f,
  0x77, 0x7f, 0x87, 0x97, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xc7, 0xcf,
  // Of the 32-bit ALU class only these behave as in eBPF: mov32 imm zero-extends, le/be swap bytes.
  Opcode.MOV32_IMM, Opcode.LE, Opcode.BE,
  // ja, conditional jumps (immediate and register forms), call, callx, exit
  0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75,
  0x7d, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd, Opcode.CALL, Opcode.CALLX, Opcode.EXIT,
]);

// prettier-ignore
/** The JMP32 class, conditions as in JMP64 on the low 32 bits: SIMD-0377 added it in v3. */
export const JMP32_OPCODES: ReadonlySet<number> = new Set([
  0x16, 0x1e, 0x26, 0x2e, 0x36, 0x3e, 0x46, 0x4e, 0x56, 0x5e, 0x66, 0x6e, 0x76, 0x7e,
  0xa6, 0xae, 0xb6, 0xbe, 0xc6, 0xce, 0xd6, 0xde,
]);

const ATOMIC_OPCODES: ReadonlySet<number> = new Set([0xc3, 0xdb]);
const SIGN_EXTENDING_LOADS: ReadonlySet<number> = new Set([0x81, 0x89, 0x91, 0x99]);
const BSWAP = 0xd7;

/**
 * Why SBPF `version` cannot run this eBPF instruction as LLVM meant it, or undefined if it can.
 * Opcodes that are not eBPF at all are left to the verifier (`UnknownOpCode`).
 */
export function unsupportedInstructionReason(
  opcode: number,
  offsetField: number,
  version: SbpfVersion,
): string | undefined {
  const instructionClass = opcode & 0x07;
  // cpu v4 reuses the offset field of div/mod/mov to mean sdiv/smod/movsx.
  if (instructionClass === InstructionClass.ALU64 && offsetField !== 0) {
    return "signed division, signed remainder or sign-extending move (BPF cpu v4)";
  }
  if (SHARED_WITH_EBPF.has(opcode)) return undefined;
  if (JMP32_OPCODES.has(opcode)) {
    return version === 3 ? undefined : "32-bit conditional jump (JMP32): SBPF v3 has it, v0 does not";
  }
  if (instructionClass === InstructionClass.ALU32) {
    return "32-bit ALU operation: SBPF sign-extends 32-bit add/sub/mul results where eBPF zero-extends (compile for cpu v2 without +alu32)";
  }
  if (ATOMIC_OPCODES.has(opcode)) return "atomic memory operation (SBPF has no atomics)";
  if (SIGN_EXTENDING_LOADS.has(opcode)) return "sign-extending load (BPF cpu v4)";
  if (opcode === BSWAP) return "bswap (BPF cpu v4)";
  return undefined;
}

export interface InstructionRange {
  /** The merged .text bytes. */
  text: Uint8Array;
  start: number;
  end: number;
  /** Input section name, for error messages. */
  sectionName: string;
  version: SbpfVersion;
}

/** The register LLVM meant: dst since LLVM 19, src in older encodings. */
function callxRegister(registers: number): number {
  const destination = registers & 0x0f;
  return destination !== 0 ? destination : registers >> 4;
}

/**
 * Puts callx's target register where `version` reads it: v0 reads the immediate, v3 the dst field
 * (SIMD-0377), which is also where LLVM 19 and later put it.
 */
function encodeCallx(text: Uint8Array, at: number, version: SbpfVersion): void {
  const register = callxRegister(text[at + 1] ?? 0);
  if (version === 0) {
    writeI32(text, at + 4, register);
  } else {
    writeU8(text, at + 1, register);
    writeI32(text, at + 4, 0);
  }
}

/**
 * Refuses instructions SBPF lacks or runs differently and puts every `callx` in the version's
 * encoding. Returns how many callx instructions were rewritten.
 */
export function checkAndPatchInstructions({
  text,
  start,
  end,
  sectionName,
  version,
}: InstructionRange): number {
  let callxPatched = 0;
  for (let at = start; at < end; at += SBPF_INSTRUCTION_SIZE) {
    const opcode = text[at] ?? 0;
    const reason = unsupportedInstructionReason(opcode, readU16(text, at + 2), version);
    if (reason !== undefined) {
      throw new SbpfLinkError("SBPF_LINK__UNSUPPORTED_INSTRUCTION", {
        section: sectionName,
        offset: at - start,
        opcode,
        reason,
        version,
      });
    }
    if (opcode === Opcode.CALLX) {
      encodeCallx(text, at, version);
      callxPatched += 1;
    }
    // The second slot of lddw holds the upper half of the immediate, not an instruction.
    if (opcode === Opcode.LDDW) at += SBPF_INSTRUCTION_SIZE;
  }
  return callxPatched;
}

export function isCallInstruction(text: Uint8Array, offset: number): boolean {
  return text[offset] === Opcode.CALL;
}

export function isLoadDoubleWord(text: Uint8Array, offset: number): boolean {
  return text[offset] === Opcode.LDDW;
}

export function readImmediate(text: Uint8Array, instructionOffset: number): number {
  return readI32(text, instructionOffset + 4);
}

/** The source register field of an instruction: for `call`, 0 = syscall and 1 = internal call in v3. */
export function writeSourceRegister(text: Uint8Array, instructionOffset: number, source: number): void {
  const registers = text[instructionOffset + 1] ?? 0;
  writeU8(text, instructionOffset + 1, (source << 4) | (registers & 0x0f));
}
