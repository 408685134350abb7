import { readI32, readU16, writeI32 } from "./byte-io.js";
import { SBPF_INSTRUCTION_SIZE } from "./elf-constants.js";
import { SbpfLinkError } from "./errors.js";

/**
 * Instruction-level checks: LLVM's BPF backend targets the Linux eBPF ISA, and SBPF v0 is a
 * different dialect. Everything outside the shared subset is refused here, at build time, instead
 * of failing (or silently computing something else) on chain.
 */

const Opcode = {
  LDDW: 0x18,
  CALL: 0x85,
  CALLX: 0x8d,
  MOV32_IMM: 0xb4,
  LE: 0xd4,
  BE: 0xdc,
} as const;

const InstructionClass = { ALU32: 0x04, JMP32: 0x06, ALU64: 0x07 } as const;

// prettier-ignore
const SBPF_V0_OPCODES: ReadonlySet<number> = new Set([
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
  0x7d, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd, Opcode.CALL, Opcode.CALLX, 0x95,
]);

const ATOMIC_OPCODES: ReadonlySet<number> = new Set([0xc3, 0xdb]);
const SIGN_EXTENDING_LOADS: ReadonlySet<number> = new Set([0x81, 0x89, 0x91, 0x99]);
const BSWAP = 0xd7;

/** Why SBPF v0 cannot run this instruction, or undefined if it can. */
export function unsupportedInstructionReason(opcode: number, offsetField: number): string | undefined {
  const instructionClass = opcode & 0x07;
  // cpu v4 reuses the offset field of div/mod/mov to mean sdiv/smod/movsx.
  if (instructionClass === InstructionClass.ALU64 && offsetField !== 0) {
    return "signed division, signed remainder or sign-extending move (BPF cpu v4)";
  }
  if (SBPF_V0_OPCODES.has(opcode)) return undefined;
  if (instructionClass === InstructionClass.ALU32) {
    return "32-bit ALU operation: SBPF v0 sign-extends 32-bit results where eBPF zero-extends (compile for cpu v2 without +alu32)";
  }
  if (instructionClass === InstructionClass.JMP32)
    return "32-bit conditional jump (JMP32, BPF cpu v3 and later)";
  if (ATOMIC_OPCODES.has(opcode)) return "atomic memory operation (SBPF has no atomics)";
  if (SIGN_EXTENDING_LOADS.has(opcode)) return "sign-extending load (BPF cpu v4)";
  if (opcode === BSWAP) return "bswap (BPF cpu v4)";
  return "unknown opcode";
}

export interface InstructionRange {
  /** The merged .text bytes. */
  text: Uint8Array;
  start: number;
  end: number;
  /** Input section name, for error messages. */
  sectionName: string;
}

/**
 * Refuses instructions SBPF v0 lacks and rewrites every `callx` to SBPF's encoding: LLVM puts the
 * target register in the dst field, SBPF v0 reads it from the immediate. Returns how many callx
 * instructions were patched.
 */
export function checkAndPatchInstructions({ text, start, end, sectionName }: InstructionRange): number {
  let callxPatched = 0;
  for (let at = start; at < end; at += SBPF_INSTRUCTION_SIZE) {
    const opcode = text[at] ?? 0;
    const registers = text[at + 1] ?? 0;
    const reason = unsupportedInstructionReason(opcode, readU16(text, at + 2));
    if (reason !== undefined) {
      throw new SbpfLinkError("SBPF_LINK__UNSUPPORTED_INSTRUCTION", {
        section: sectionName,
        offset: at - start,
        opcode,
        reason,
      });
    }
    if (opcode === Opcode.CALLX) {
      const destination = registers & 0x0f;
      const source = registers >> 4;
      writeI32(text, at + 4, destination !== 0 ? destination : source);
      callxPatched += 1;
    }
    if (opcode === Opcode.LDDW) {
      if (at + 2 * SBPF_INSTRUCTION_SIZE > end) {
        throw new SbpfLinkError("SBPF_LINK__UNSUPPORTED_INSTRUCTION", {
          section: sectionName,
          offset: at - start,
          opcode,
          reason: "lddw without its second instruction slot",
        });
      }
      at += SBPF_INSTRUCTION_SIZE;
    }
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
