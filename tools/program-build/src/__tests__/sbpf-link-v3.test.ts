import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { generateKeyPairSigner } from "@solana/kit";
import {
  ELF_HEADER_SIZE,
  EM_BPF,
  PROGRAM_HEADER_SIZE,
  ProgramHeaderFlag,
  ProgramHeaderType,
  SBPF_PROGRAM_VADDR,
} from "../sbpf-link/elf-constants.js";
import { readElf } from "../sbpf-link/elf-reader.js";
import { isSbpfLinkError, type SbpfLinkError } from "../sbpf-link/errors.js";
import { linkSbpfProgram } from "../sbpf-link/link.js";
import { murmur3 } from "../sbpf-link/murmur3.js";
import { SOLANA_SYSCALLS, syscallHash } from "../sbpf-link/syscalls.js";
import type { SbpfVerifierRule } from "../sbpf-link/verifier.js";
import { assembleBpf, LLVM_MC } from "./helpers/assemble.js";
import { encodeInstruction, quadDirective } from "./helpers/bytecode.js";
import { bytecodeInstructions, lddwAddress, strictSegments } from "./helpers/program-image.js";
import { createFundedSvm, invokeProgram, logsOf } from "./helpers/svm.js";
import { skipWithoutTools } from "./helpers/toolchain.js";

const skip = skipWithoutTools([LLVM_MC]);

const CALL = 0x85;
const CALLX = 0x8d;
const LDDW = 0x18;

const entrypointWith = (body: string, extra = ""): string => `
  .text
  .globl entrypoint
  .type entrypoint,@function
entrypoint:
${body}
${extra}
`;

const HELPER = `  .globl helper
  .type helper,@function
helper:
  r0 = 7
  exit`;

const READ_ONLY_DATA = `  .section .rodata.str1.1,"aMS",@progbits,1
greeting:
  .asciz "hello"

  .section .data.rel.ro,"aw",@progbits
  .p2align 3
table:
  .quad helper
  .quad greeting+2`;

function linkV3(source: string) {
  return linkSbpfProgram(assembleBpf(source), { sbpfVersion: 3 });
}

function assertVerifierRejection(
  source: string,
  rule: SbpfVerifierRule,
): SbpfLinkError<"SBPF_LINK__VERIFIER_REJECTED"> {
  let caught: unknown;
  assert.throws(
    () => linkV3(source),
    (error: unknown) => {
      caught = error;
      return isSbpfLinkError(error, "SBPF_LINK__VERIFIER_REJECTED");
    },
  );
  const error = caught as SbpfLinkError<"SBPF_LINK__VERIFIER_REJECTED">;
  assert.equal(error.context.rule, rule, error.message);
  assert.equal(error.context.version, 3);
  return error;
}

const u64At = (bytes: Uint8Array, at: number): bigint =>
  new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(at, true);

describe("sbpf-link v3: the strict ELF layout of SIMD-0189", { skip }, () => {
  const { program } = linkV3(entrypointWith("  call helper\n  exit", `${HELPER}\n${READ_ONLY_DATA}`));
  const elf = readElf(program);
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);

  test("the file header identifies an SBPF v3 program for EM_BPF, program headers right after it", () => {
    assert.deepEqual([...program.subarray(0, 8)], [0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]); // ELF64 LSB, EV_CURRENT, OSABI 0
    assert.deepEqual([...program.subarray(8, 16)], [0, 0, 0, 0, 0, 0, 0, 0]); // ABI version 0, padding
    assert.equal(elf.machine, EM_BPF);
    assert.equal(elf.version, 1);
    assert.equal(elf.flags, 3);
    assert.equal(Number(view.getBigUint64(32, true)), ELF_HEADER_SIZE); // e_phoff
    assert.equal(view.getUint16(52, true), ELF_HEADER_SIZE); // e_ehsize
    assert.equal(view.getUint16(54, true), PROGRAM_HEADER_SIZE); // e_phentsize
    assert.equal(elf.programHeaders.length, 2);
  });

  test("header 0 maps read-only data (PF_R) at 0, header 1 the bytecode (PF_X) at 0x1_0000_0000, back to back", () => {
    const [rodata, bytecode] = elf.programHeaders;
    assert.ok(rodata && bytecode);
    assert.deepEqual(
      [rodata.type, rodata.flags, rodata.vaddr, rodata.paddr],
      [ProgramHeaderType.LOAD, ProgramHeaderFlag.R, 0, 0],
    );
    assert.deepEqual(
      [bytecode.type, bytecode.flags, BigInt(bytecode.vaddr), BigInt(bytecode.paddr)],
      [ProgramHeaderType.LOAD, ProgramHeaderFlag.X, SBPF_PROGRAM_VADDR, SBPF_PROGRAM_VADDR],
    );
    // Each segment starts where the previous one ends, the first right after the program headers
    assert.equal(rodata.offset, ELF_HEADER_SIZE + 2 * PROGRAM_HEADER_SIZE);
    assert.equal(bytecode.offset, rodata.offset + rodata.filesz);
    for (const header of [rodata, bytecode]) {
      assert.equal(header.offset % 8, 0);
      assert.equal(header.filesz % 8, 0);
      assert.equal(header.filesz, header.memsz);
      assert.ok(header.offset + header.filesz <= program.length);
      assert.ok(header.memsz < 2 ** 32);
    }
  });

  test("e_entry is the entrypoint's address in the bytecode segment, also when it is not the first function", () => {
    // Given the entrypoint after a helper function
    const { program: later } = linkV3(
      `${HELPER.replace("helper:", "helper:\n  r1 = 1")}\n${entrypointWith("  exit")}`,
    );
    const laterElf = readElf(later);
    // Then e_entry is 0x1_0000_0000 + 3 instructions, inside the bytecode segment and aligned
    assert.equal(BigInt(laterElf.entry), SBPF_PROGRAM_VADDR + 3n * 8n);
    assert.equal(BigInt(elf.entry), SBPF_PROGRAM_VADDR);
  });

  test("nothing is left for the loader to patch: no PT_DYNAMIC, no dynamic symbols, no relocations", () => {
    assert.ok(elf.programHeaders.every((header) => header.type === ProgramHeaderType.LOAD));
    const names = elf.sections.map((section) => section.name);
    for (const name of [".dynamic", ".dynsym", ".dynstr", ".rel.dyn"]) assert.ok(!names.includes(name), name);
  });

  test("a program without read-only data has an empty first segment and the bytecode after the headers", () => {
    const { program: codeOnly } = linkV3(entrypointWith("  r0 = 0\n  exit"));
    const [rodata, bytecode] = readElf(codeOnly).programHeaders;
    assert.equal(rodata?.filesz, 0);
    assert.equal(rodata?.flags, ProgramHeaderFlag.R);
    assert.equal(bytecode?.offset, ELF_HEADER_SIZE + 2 * PROGRAM_HEADER_SIZE);
  });

  test("linking is deterministic", () => {
    const object = assembleBpf(entrypointWith("  call helper\n  exit", `${HELPER}\n${READ_ONLY_DATA}`));
    assert.deepEqual(linkSbpfProgram(object).program, linkSbpfProgram(object).program);
  });
});

describe("sbpf-link v3: addresses are final at link time", { skip }, () => {
  const source = entrypointWith(
    `  r1 = greeting ll
  r2 = table ll
  r3 = helper ll
  exit`,
    `${HELPER}\n${READ_ONLY_DATA}`,
  );
  const { program } = linkV3(source);
  const { rodata, bytecode } = strictSegments(program);
  const lddws = bytecodeInstructions(program).filter((instruction) => instruction.opcode === LDDW);
  const [greeting, table, helper] = lddws.map((lddw) => lddwAddress(program, lddw.fileOffset));
  // helper's first instruction, `r0 = 7`
  const helperIndex = bytecodeInstructions(program).findIndex(
    (instruction) => instruction.opcode === 0xb7 && instruction.immediate === 7,
  );

  test("read-only data starts at address 8: address 0, Rust's null, belongs to no object", () => {
    assert.deepEqual([...rodata.bytes.subarray(0, 8)], [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(greeting, 8n);
    // And lddw of a string gives its address in the read-only segment
    const at = Number(greeting ?? 0n);
    assert.equal(new TextDecoder().decode(rodata.bytes.subarray(at, at + 5)), "hello");
  });

  test("lddw of a function gives its bytecode address: 0x1_0000_0000 + 8 x instruction index", () => {
    assert.equal(helper, bytecode.vaddr + BigInt(helperIndex * 8));
  });

  test("pointers stored in read-only data hold final addresses of code and of data", () => {
    // Given the table { &helper, greeting + 2 } in .data.rel.ro
    const at = Number(table ?? 0n);
    // Then it holds the function's bytecode address (what callx jumps to) and the string's address
    assert.equal(u64At(rodata.bytes, at), bytecode.vaddr + BigInt(helperIndex * 8));
    assert.equal(u64At(rodata.bytes, at + 8), (greeting ?? 0n) + 2n);
  });
});

describe("sbpf-link v3: calls", { skip }, () => {
  test("murmur3-32 (seed 0) matches the published test vectors and SIMD-0178's example", () => {
    const hash = (text: string) => murmur3(new TextEncoder().encode(text));
    assert.equal(hash(""), 0);
    assert.equal(hash("hello"), 0x248bfa47);
    assert.equal(hash("Hello, world!"), 0xc0363e43);
    assert.equal(hash("The quick brown fox jumps over the lazy dog"), 0x2e4ff723);
    // SIMD-0178: `call abort` is 85 00 00 00 11 1a fc b6
    assert.equal(syscallHash("abort"), 0xb6fc1a11);
  });

  test("a syscall, whatever its name, is `call` with source 0 and murmur3(name) as the immediate", () => {
    // Given calls to syscalls this program never used before
    const names = ["sol_log_", "sol_curve_validate_point", "sol_get_stack_height", "abort", "sol_log_"];
    const { program, report } = linkV3(
      entrypointWith(names.map((name) => `  call ${name}`).join("\n") + "\n  exit"),
    );
    // Then each call names the syscall by hash, with no relocation for the loader
    const calls = bytecodeInstructions(program).filter((instruction) => instruction.opcode === CALL);
    assert.deepEqual(
      calls.map((call) => [call.source, call.immediate >>> 0]),
      names.map((name) => [0, syscallHash(name)]),
    );
    assert.deepEqual(report.syscalls, [
      "sol_log_",
      "sol_curve_validate_point",
      "sol_get_stack_height",
      "abort",
    ]);
  });

  test("an internal call is `call` with source 1 and a pc-relative immediate to the callee's first instruction", () => {
    // Given calls to a global function, to a cold function in another section, and to a local one
    const source = entrypointWith(
      `  call helper
  call cold_path
  call local
  exit
local:
  exit`,
      `${HELPER}
  .section .text.unlikely.,"ax",@progbits
  .type cold_path,@function
cold_path:
  r0 = 1
  exit`,
    );
    // When it is linked
    const { program, report } = linkV3(source);
    // Then every call has source 1 and lands on the first instruction of its callee
    const instructions = bytecodeInstructions(program);
    const calls = instructions.filter((instruction) => instruction.opcode === CALL);
    const targets = calls.map((call) => instructions[call.index + 1 + call.immediate]);
    assert.deepEqual(
      calls.map((call) => call.source),
      [1, 1, 1],
    );
    assert.deepEqual(
      targets.map((target) => [target?.opcode, target?.immediate]),
      [
        [0xb7, 7], // helper: r0 = 7
        [0xb7, 1], // cold_path: r0 = 1
        [0x95, 0], // local: exit
      ],
    );
    assert.equal(report.internalCallsRelocated, 2); // the local call was resolved by the assembler
  });

  test("callx keeps its register in the dst field, where v3 reads it (SIMD-0377)", () => {
    const { program, report } = linkV3(entrypointWith("  r3 = 0\n  callx r3\n  exit"));
    const callx = bytecodeInstructions(program).find((instruction) => instruction.opcode === CALLX);
    assert.equal(callx?.registers, 3);
    assert.equal(callx?.immediate, 0);
    assert.equal(report.callxPatched, 1);
  });

  test("JMP32 conditional jumps, which v3 has (SIMD-0377), link", () => {
    assert.doesNotThrow(() => linkV3(entrypointWith("  r1 = 0\n  if w1 > 3 goto +0\n  exit")));
  });
});

describe("sbpf-link v3: what the verifier would reject never leaves the linker", { skip }, () => {
  test("division by an immediate 0 is refused as DivisionByZero, pointing at the instruction", () => {
    const error = assertVerifierRejection(entrypointWith("  r0 = 1\n  r0 /= 0\n  exit"), "DivisionByZero");
    assert.deepEqual([error.context.section, error.context.offset, error.context.opcode], [".text", 8, 0x37]);
    assert.match(
      error.message,
      /SBPF v3 verifier would reject instruction 0x37 at \.text\+0x8 \(DivisionByZero\)/,
    );
  });

  test("a shift by the operand's width or more is refused as ShiftWithOverflow", () => {
    assertVerifierRejection(entrypointWith("  r0 <<= 64\n  exit"), "ShiftWithOverflow");
  });

  test("a jump past the last instruction is refused as JumpOutOfCode", () => {
    assertVerifierRejection(entrypointWith("  goto +5\n  exit"), "JumpOutOfCode");
  });

  test("a call by hash to a syscall the runtime does not register is refused as InvalidSyscall", () => {
    const unregistered = encodeInstruction(CALL, { source: 0, immediate: 0x1234_5678 });
    assertVerifierRejection(entrypointWith(`  ${quadDirective(unregistered)}\n  exit`), "InvalidSyscall");
  });

  test("an internal call left unresolved, or into the middle of a function, is refused as InvalidFunction", () => {
    const unresolved = encodeInstruction(CALL, { source: 1, immediate: -1 });
    assertVerifierRejection(entrypointWith(`  ${quadDirective(unresolved)}\n  exit`), "InvalidFunction");
    // The call is instruction 0 and helper starts at 2 (0 + 1 + 1): an immediate of 2 lands on its second instruction
    const intoTheMiddle = encodeInstruction(CALL, { source: 1, immediate: 2 });
    assertVerifierRejection(
      entrypointWith(`  ${quadDirective(intoTheMiddle)}\n  exit`, HELPER),
      "InvalidFunction",
    );
  });

  test("writing r10 is refused as CannotWriteR10", () => {
    const writeFramePointer = encodeInstruction(0xb7, { destination: 10, immediate: 1 });
    assertVerifierRejection(
      entrypointWith(`  ${quadDirective(writeFramePointer)}\n  exit`),
      "CannotWriteR10",
    );
  });

  test("an opcode that is not SBPF v3 is refused as UnknownOpCode", () => {
    // hor64 (0xf7) exists only in SBPF v2 (SIMD-0173)
    const hor64 = encodeInstruction(0xf7, { immediate: 1 });
    assertVerifierRejection(entrypointWith(`  ${quadDirective(hor64)}\n  exit`), "UnknownOpCode");
  });
});

describe("sbpf-link v3: static syscalls on the real SVM", { skip }, () => {
  /** The runtime's answer to a `call` whose hash names no registered syscall. */
  const UNREGISTERED = /unsupported BPF instruction/;

  /** Syscalls whose v3 call the SVM does not dispatch, each in a program of its own. */
  async function undispatchedSyscalls(simd0500: boolean): Promise<string[]> {
    const funded = await createFundedSvm({ simd0500 });
    const undispatched: string[] = [];
    for (const name of SOLANA_SYSCALLS) {
      // Given a program that calls the syscall with zero arguments
      const zeroArguments = [1, 2, 3, 4, 5].map((register) => `  r${register} = 0`).join("\n");
      const { program } = linkV3(entrypointWith(`${zeroArguments}\n  call ${name}\n  r0 = 0\n  exit`));
      const programId = (await generateKeyPairSigner()).address;
      funded.svm.addProgram(programId, program);
      // When it runs, then it succeeds or fails inside the syscall (null pointers), unless the
      // runtime has no syscall under that hash
      const result = await invokeProgram(funded, programId, new Uint8Array(0));
      if (logsOf(result).some((line) => UNREGISTERED.test(line))) undispatched.push(name);
    }
    return undispatched;
  }

  test("with every feature active, every syscall the linker accepts is dispatched by its hash", async () => {
    assert.deepEqual(await undispatchedSyscalls(true), []);
  });

  test("with litesvm's mainnet features, all but three feature-gated syscalls are dispatched", async () => {
    assert.deepEqual(await undispatchedSyscalls(false), [
      "sol_blake3",
      "sol_big_mod_exp",
      "sol_remaining_compute_units",
    ]);
  });
});
