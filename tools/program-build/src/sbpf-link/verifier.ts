import { readI32, readU16 } from "./byte-io.js";
import { SBPF_INSTRUCTION_SIZE } from "./elf-constants.js";
import { JMP32_OPCODES, Opcode } from "./instructions.js";
import type { SbpfVersion } from "./sbpf-version.js";

/**
 * The checks the runtime applies to a program's bytecode before it deploys or runs it, applied to
 * the linker's own output so that a program the runtime would refuse never leaves the build.
 * Rules and their names follow solana-sbpf 0.23 (the VM litesvm 1.5 embeds): the verifier that runs
 * at deployment for every version, and for v3 the call checks `solana program deploy` adds (a
 * syscall must be registered, no call is left unresolved) and the execution-time rule that an
 * internal call stays inside the bytecode. Internal calls must also land on the start of a
 * function; the runtime no longer demands that (SIMD-0179 was withdrawn from v3), but it is what
 * a correctly relocated call does, so it checks the linker's own arithmetic.
 */

export type SbpfVerifierRule =
  | "NoProgram"
  | "ProgramLengthNotMultiple"
  | "UnknownOpCode"
  | "LDDWCannotBeLast"
  | "IncompleteLDDW"
  | "JumpOutOfCode"
  | "JumpToMiddleOfLDDW"
  | "DivisionByZero"
  | "UnsupportedLEBEArgument"
  | "ShiftWithOverflow"
  | "InvalidSourceRegister"
  | "InvalidDestinationRegister"
  | "CannotWriteR10"
  | "InvalidRegister"
  | "InvalidSyscall"
  | "InvalidFunction"
  | "CallOutsideTextSegment"
  | "UnsupportedInstruction";

export interface VerifierFinding {
  rule: SbpfVerifierRule;
  /** Index of the offending instruction slot in the bytecode. */
  instructionIndex: number;
  opcode: number;
  detail: string;
}

export interface VerifierContext {
  version: SbpfVersion;
  /** Instruction indexes at which functions start: where internal calls may land. */
  functionStarts: ReadonlySet<number>;
  /** Keys of the syscalls the runtime registers: a v3 `call` with source 0 must use one. */
  syscallHashes: ReadonlySet<number>;
}

/** What the verifier checks beyond "is a known opcode" for each instruction. */
type Check =
  "plain" | "store" | "lddw" | "nonzero" | "shift32" | "shift64" | "endian" | "jump" | "call" | "callx";

// prettier-ignore
const CHECKS_ALL_VERSIONS: ReadonlyArray<[Check, number[]]> = [
  ["lddw", [Opcode.LDDW]],
  ["plain", [0x61, 0x69, 0x71, 0x79]], // ldx{w,h,b,dw}
  ["store", [0x62, 0x6a, 0x72, 0x7a, 0x63, 0x6b, 0x73, 0x7b]], // st and stx
  // ALU32 and ALU64: add sub mul or and neg xor mov in both forms, and the register forms of
  // div, mod and shifts
  ["plain", [0x04, 0x0c, 0x14, 0x1c, 0x24, 0x2c, 0x3c, 0x44, 0x4c, 0x54, 0x5c, 0x6c, 0x7c,
             0x84, 0x9c, 0xa4, 0xac, 0xb4, 0xbc, 0xcc]],
  ["plain", [0x07, 0x0f, 0x17, 0x1f, 0x27, 0x2f, 0x3f, 0x47, 0x4f, 0x57, 0x5f, 0x6f, 0x7f,
             0x87, 0x9f, 0xa7, 0xaf, 0xb7, 0xbf, 0xcf]],
  ["nonzero", [0x34, 0x94, 0x37, 0x97]], // div and mod by an immediate
  ["shift32", [0x64, 0x74, 0xc4]], // lsh, rsh, arsh by an immediate
  ["shift64", [0x67, 0x77, 0xc7]],
  ["endian", [Opcode.LE, Opcode.BE]],
  ["jump", [0x05, 0x15, 0x1d, 0x25, 0x2d, 0x35, 0x3d, 0x45, 0x4d, 0x55, 0x5d, 0x65, 0x6d, 0x75,
            0x7d, 0xa5, 0xad, 0xb5, 0xbd, 0xc5, 0xcd, 0xd5, 0xdd]],
  ["call", [Opcode.CALL]],
  ["callx", [Opcode.CALLX]],
  ["plain", [Opcode.EXIT]],
];

function checksFor(version: SbpfVersion): ReadonlyMap<number, Check> {
  const checks = new Map<number, Check>();
  for (const [check, opcodes] of CHECKS_ALL_VERSIONS) for (const opcode of opcodes) checks.set(opcode, check);
  if (version === 3) for (const opcode of JMP32_OPCODES) checks.set(opcode, "jump");
  return checks;
}

const CHECKS: Record<SbpfVersion, ReadonlyMap<number, Check>> = { 0: checksFor(0), 3: checksFor(3) };

const FRAME_POINTER = 10;
/** A v3 `call` with this source register calls a syscall by hash; with 1 it is pc-relative. */
const SYSCALL_SOURCE = 0;
const INTERNAL_CALL_SOURCE = 1;

interface Instruction {
  index: number;
  opcode: number;
  destination: number;
  source: number;
  offset: number;
  immediate: number;
}

function instructionAt(text: Uint8Array, index: number): Instruction {
  const at = index * SBPF_INSTRUCTION_SIZE;
  const registers = text[at + 1] ?? 0;
  return {
    index,
    opcode: text[at] ?? 0,
    destination: registers & 0x0f,
    source: registers >> 4,
    offset: (readU16(text, at + 2) << 16) >> 16,
    immediate: readI32(text, at + 4),
  };
}

class Verification {
  readonly count: number;

  constructor(
    readonly text: Uint8Array,
    readonly context: VerifierContext,
  ) {
    this.count = text.length / SBPF_INSTRUCTION_SIZE;
  }

  finding(rule: SbpfVerifierRule, instruction: Instruction, detail: string): VerifierFinding {
    return { rule, instructionIndex: instruction.index, opcode: instruction.opcode, detail };
  }

  /** Jumps count from the next instruction and must land on an instruction, not inside an lddw. */
  jumpTarget(instruction: Instruction): VerifierFinding | undefined {
    const target = instruction.index + 1 + instruction.offset;
    if (target < 0 || target >= this.count) {
      return this.finding("JumpOutOfCode", instruction, `jump to instruction ${target} of ${this.count}`);
    }
    if (this.text[target * SBPF_INSTRUCTION_SIZE] === 0) {
      return this.finding(
        "JumpToMiddleOfLDDW",
        instruction,
        `jump to instruction ${target}, the second half of an lddw`,
      );
    }
    return undefined;
  }

  loadDoubleWord(instruction: Instruction): VerifierFinding | undefined {
    if (instruction.index + 1 >= this.count) {
      return this.finding("LDDWCannotBeLast", instruction, "lddw needs a second instruction slot");
    }
    if (this.text[(instruction.index + 1) * SBPF_INSTRUCTION_SIZE] !== 0) {
      return this.finding("IncompleteLDDW", instruction, "the second slot of lddw must have opcode 0");
    }
    return undefined;
  }

  /** v3 only: v0 call immediates are hashes the loader writes at load time. */
  call(instruction: Instruction): VerifierFinding | undefined {
    if (this.context.version === 0) return undefined;
    const { source, immediate } = instruction;
    if (source === SYSCALL_SOURCE) {
      return this.context.syscallHashes.has(immediate >>> 0)
        ? undefined
        : this.finding(
            "InvalidSyscall",
            instruction,
            `no syscall is registered under 0x${(immediate >>> 0).toString(16)}`,
          );
    }
    if (source !== INTERNAL_CALL_SOURCE) {
      return this.finding(
        "UnsupportedInstruction",
        instruction,
        `call with source register ${source} (0 = syscall, 1 = internal call)`,
      );
    }
    if (immediate === -1) {
      return this.finding("InvalidFunction", instruction, "unresolved internal call (immediate -1)");
    }
    const target = instruction.index + 1 + immediate;
    if (target < 0 || target >= this.count) {
      return this.finding(
        "CallOutsideTextSegment",
        instruction,
        `call to instruction ${target} of ${this.count}`,
      );
    }
    if (!this.context.functionStarts.has(target)) {
      return this.finding(
        "InvalidFunction",
        instruction,
        `call to instruction ${target}, which does not start a function`,
      );
    }
    return undefined;
  }

  callx(instruction: Instruction): VerifierFinding | undefined {
    const register = this.context.version === 0 ? instruction.immediate : instruction.destination;
    return register >= 0 && register < FRAME_POINTER
      ? undefined
      : this.finding("InvalidRegister", instruction, `callx through register ${register}`);
  }

  operands(instruction: Instruction, check: Check): VerifierFinding | undefined {
    const { immediate } = instruction;
    switch (check) {
      case "lddw":
        return this.loadDoubleWord(instruction);
      case "nonzero":
        return immediate === 0
          ? this.finding("DivisionByZero", instruction, "division by an immediate 0")
          : undefined;
      case "shift32":
      case "shift64": {
        const bits = check === "shift32" ? 32 : 64;
        return immediate < 0 || immediate >= bits
          ? this.finding("ShiftWithOverflow", instruction, `shift of a ${bits}-bit value by ${immediate}`)
          : undefined;
      }
      case "endian":
        return [16, 32, 64].includes(immediate)
          ? undefined
          : this.finding("UnsupportedLEBEArgument", instruction, `byte swap of ${immediate} bits`);
      case "jump":
        return this.jumpTarget(instruction);
      case "call":
        return this.call(instruction);
      case "callx":
        return this.callx(instruction);
      case "plain":
      case "store":
        return undefined;
    }
  }

  /** r10, the frame pointer, may only address stores; r11 and above do not exist. */
  registers(instruction: Instruction, check: Check): VerifierFinding | undefined {
    const { source, destination } = instruction;
    if (source > FRAME_POINTER)
      return this.finding("InvalidSourceRegister", instruction, `source register r${source}`);
    if (destination > FRAME_POINTER) {
      return this.finding("InvalidDestinationRegister", instruction, `destination register r${destination}`);
    }
    if (destination === FRAME_POINTER && check !== "store") {
      return this.finding("CannotWriteR10", instruction, "r10 is the read-only frame pointer");
    }
    return undefined;
  }

  run(): VerifierFinding | undefined {
    const empty: Instruction = { index: 0, opcode: 0, destination: 0, source: 0, offset: 0, immediate: 0 };
    if (this.text.length === 0) return this.finding("NoProgram", empty, "the bytecode is empty");
    if (this.text.length % SBPF_INSTRUCTION_SIZE !== 0) {
      return this.finding("ProgramLengthNotMultiple", empty, `${this.text.length} bytes of bytecode`);
    }
    const checks = CHECKS[this.context.version];
    for (let index = 0; index < this.count; index += 1) {
      const instruction = instructionAt(this.text, index);
      const check = checks.get(instruction.opcode);
      if (check === undefined) {
        return this.finding(
          "UnknownOpCode",
          instruction,
          `opcode 0x${instruction.opcode.toString(16)} is not SBPF v${this.context.version}`,
        );
      }
      const violation = this.operands(instruction, check) ?? this.registers(instruction, check);
      if (violation) return violation;
      if (check === "lddw") index += 1;
    }
    return undefined;
  }
}

/** The first rule the bytecode breaks, or undefined when the runtime would accept it. */
export function findVerifierViolation(
  text: Uint8Array,
  context: VerifierContext,
): VerifierFinding | undefined {
  return new Verification(text, context).run();
}
