import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { SbpfVersion } from "../sbpf-link/sbpf-version.js";
import { syscallHash } from "../sbpf-link/syscalls.js";
import { findVerifierViolation, type SbpfVerifierRule } from "../sbpf-link/verifier.js";
import { encodeInstruction, type InstructionFields } from "./helpers/bytecode.js";

const EXIT = encodeInstruction(0x95);
const MOV64_IMM = 0xb7;

function bytecode(...instructions: Uint8Array[]): Uint8Array {
  return Uint8Array.from(instructions.flatMap((instruction) => [...instruction]));
}

function verify(
  text: Uint8Array,
  { version = 3, functionStarts = [0] }: { version?: SbpfVersion; functionStarts?: number[] } = {},
) {
  return findVerifierViolation(text, {
    version,
    functionStarts: new Set(functionStarts),
    syscallHashes: new Set(["sol_log_", "abort"].map(syscallHash)),
  });
}

function assertRule(
  text: Uint8Array,
  rule: SbpfVerifierRule,
  instructionIndex: number,
  version: SbpfVersion = 3,
) {
  const finding = verify(text, { version });
  assert.equal(finding?.rule, rule, JSON.stringify(finding));
  assert.equal(finding?.instructionIndex, instructionIndex);
}

/** One instruction before `exit`, so the program is otherwise valid. */
const single = (opcode: number, fields: InstructionFields = {}): Uint8Array =>
  bytecode(encodeInstruction(opcode, fields), EXIT);

describe("SBPF verifier rules the linker's output must satisfy", () => {
  test("a valid program passes", () => {
    // Given mov r0, 0; call sol_log_ (syscall by hash); exit
    const text = bytecode(
      encodeInstruction(MOV64_IMM),
      encodeInstruction(0x85, { source: 0, immediate: syscallHash("sol_log_") }),
      EXIT,
    );
    // Then no rule is broken, for v3 and for v0
    assert.equal(verify(text), undefined);
    assert.equal(verify(text, { version: 0 }), undefined);
  });

  test("the bytecode is a non-empty whole number of 8-byte instructions", () => {
    assert.equal(verify(new Uint8Array(0))?.rule, "NoProgram");
    assert.equal(verify(EXIT.subarray(0, 4))?.rule, "ProgramLengthNotMultiple");
  });

  test("opcodes outside the version's instruction set are UnknownOpCode", () => {
    assertRule(single(0xff), "UnknownOpCode", 0);
    // SIMD-0173/0174 encodings belong to SBPF v2 only: in v3 the moved ldxw (0x8c) and hor64
    // (0xf7) do not exist
    assertRule(single(0x8c), "UnknownOpCode", 0);
    assertRule(single(0xf7), "UnknownOpCode", 0);
    // JMP32 (SIMD-0377) is v3 only
    const jump32 = single(0x16, { offset: 0 });
    assert.equal(verify(jump32), undefined);
    assertRule(jump32, "UnknownOpCode", 0, 0);
  });

  test("lddw takes two slots, the second with opcode 0", () => {
    assertRule(bytecode(EXIT, encodeInstruction(0x18)), "LDDWCannotBeLast", 1);
    assertRule(bytecode(encodeInstruction(0x18), EXIT, EXIT), "IncompleteLDDW", 0);
    assert.equal(verify(bytecode(encodeInstruction(0x18), encodeInstruction(0), EXIT)), undefined);
  });

  test("jumps land on an instruction inside the bytecode, never inside an lddw", () => {
    assertRule(single(0x05, { offset: 1 }), "JumpOutOfCode", 0);
    assertRule(single(0x15, { offset: -2 }), "JumpOutOfCode", 0);
    assertRule(single(0x16, { offset: 5 }), "JumpOutOfCode", 0);
    const intoLddw = bytecode(
      encodeInstruction(0x05, { offset: 1 }),
      encodeInstruction(0x18),
      encodeInstruction(0),
      EXIT,
    );
    assertRule(intoLddw, "JumpToMiddleOfLDDW", 0);
  });

  test("immediate operands: no division by 0, byte swaps of 16/32/64 bits, shifts below the width", () => {
    for (const opcode of [0x34, 0x94, 0x37, 0x97])
      assertRule(single(opcode, { immediate: 0 }), "DivisionByZero", 0);
    assertRule(single(0xdc, { immediate: 8 }), "UnsupportedLEBEArgument", 0);
    assertRule(single(0xd4, { immediate: 128 }), "UnsupportedLEBEArgument", 0);
    assertRule(single(0x64, { immediate: 32 }), "ShiftWithOverflow", 0);
    assertRule(single(0x67, { immediate: 64 }), "ShiftWithOverflow", 0);
    assertRule(single(0xc7, { immediate: -1 }), "ShiftWithOverflow", 0);
    assert.equal(verify(single(0x67, { immediate: 63 })), undefined);
  });

  test("registers: r0-r10 only, and r10 (the frame pointer) is written only through stores", () => {
    assertRule(single(0xbf, { source: 11 }), "InvalidSourceRegister", 0);
    assertRule(single(MOV64_IMM, { destination: 11 }), "InvalidDestinationRegister", 0);
    assertRule(single(MOV64_IMM, { destination: 10 }), "CannotWriteR10", 0);
    // A store addresses memory through r10, it does not change it
    assert.equal(verify(single(0x7b, { destination: 10, source: 1, offset: -8 })), undefined);
  });

  test("callx names r0-r9: v3 in the dst field, v0 in the immediate", () => {
    assertRule(single(0x8d, { destination: 10 }), "InvalidRegister", 0);
    assert.equal(verify(single(0x8d, { destination: 3 })), undefined);
    assertRule(single(0x8d, { immediate: 10 }), "InvalidRegister", 0, 0);
    assert.equal(verify(single(0x8d, { immediate: 3 }), { version: 0 }), undefined);
  });

  test("v3 calls: source 0 names a registered syscall by hash, source 1 a function start pc-relatively", () => {
    // A hash no syscall is registered under
    assertRule(single(0x85, { source: 0, immediate: 0x1234_5678 }), "InvalidSyscall", 0);
    // An internal call left unresolved (LLVM's placeholder)
    assertRule(single(0x85, { source: 1, immediate: -1 }), "InvalidFunction", 0);
    // An internal call past the end, and one into the middle of a function
    assertRule(single(0x85, { source: 1, immediate: 5 }), "CallOutsideTextSegment", 0);
    const intoTheMiddle = bytecode(encodeInstruction(0x85, { source: 1, immediate: 1 }), EXIT, EXIT, EXIT);
    const finding = verify(intoTheMiddle, { functionStarts: [0, 3] });
    assert.equal(finding?.rule, "InvalidFunction");
    assert.equal(verify(intoTheMiddle, { functionStarts: [0, 2] }), undefined);
    // Any other source register is neither
    assertRule(single(0x85, { source: 2, immediate: 0 }), "UnsupportedInstruction", 0);
  });

  test("v0 call immediates are left to the loader", () => {
    // Given v0's syscall placeholder (call -1, patched through a dynamic relocation)
    assert.equal(verify(single(0x85, { source: 1, immediate: -1 }), { version: 0 }), undefined);
  });
});
