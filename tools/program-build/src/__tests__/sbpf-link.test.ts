import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  BpfRelocation,
  ElfType,
  EM_BPF,
  SBPF_PROGRAM_VADDR,
  SectionFlag,
} from "../sbpf-link/elf-constants.js";
import { findSection, readElf } from "../sbpf-link/elf-reader.js";
import {
  isSbpfLinkError,
  SBPF_LINK_ERROR_CODES,
  SbpfLinkError,
  type SbpfLinkErrorCode,
  type SbpfLinkErrorContext,
} from "../sbpf-link/errors.js";
import { linkSbpfProgram } from "../sbpf-link/link.js";
import type { SbpfVersion } from "../sbpf-link/sbpf-version.js";
import { assembleBpf, LLVM_MC } from "./helpers/assemble.js";
import {
  dynamicRelocations,
  lddwAddress,
  requireSection,
  textInstructions,
} from "./helpers/program-image.js";
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

function linkAssembly(source: string, sbpfVersion?: SbpfVersion) {
  return linkSbpfProgram(assembleBpf(source), { sbpfVersion });
}

function assertLinkError<C extends SbpfLinkErrorCode>(
  source: string,
  code: C,
  sbpfVersion?: SbpfVersion,
): SbpfLinkError<C> {
  let caught: unknown;
  assert.throws(
    () => linkAssembly(source, sbpfVersion),
    (error: unknown) => {
      caught = error;
      return isSbpfLinkError(error, code);
    },
  );
  return caught as SbpfLinkError<C>;
}

describe("sbpf-link: calls", { skip }, () => {
  test("a call to a global function becomes pc-relative (target = pc + 1 + imm)", () => {
    // Given an entrypoint that calls a global function, which the assembler leaves to the linker
    const source = entrypointWith(
      `  call helper
  exit`,
      `  .globl helper
  .type helper,@function
helper:
  r0 = 7
  exit`,
    );

    // When it is linked
    const { program, report } = linkAssembly(source);

    // Then the call's immediate counts instructions from the next one to the helper
    const [call, , helper] = textInstructions(program);
    assert.equal(call?.opcode, CALL);
    assert.equal(call?.immediate, 1);
    assert.equal(helper?.opcode, 0xb7);
    assert.equal(report.internalCallsRelocated, 1);
  });

  test("a call into another code section lands on the merged .text copy of it", () => {
    // Given code split over .text and .text.unlikely. (as llc emits for cold paths)
    const source = entrypointWith(
      `  call cold_path
  exit`,
      `  .section .text.unlikely.,"ax",@progbits
cold_path:
  r0 = 1
  exit`,
    );

    // When it is linked
    const { program, report } = linkAssembly(source);

    // Then there is one .text holding both, and the call reaches the cold function
    assert.deepEqual(report.textInputs, [".text", ".text.unlikely."]);
    const instructions = textInstructions(program);
    const call = instructions[0];
    assert.ok(call);
    const target = instructions.find(
      (instruction) => instruction.fileOffset === call.fileOffset + (call.immediate + 1) * 8,
    );
    assert.equal(target?.opcode, 0xb7);
    assert.equal(target?.immediate, 1);
  });

  test("callx carries its register in the immediate, as SBPF v0 reads it", () => {
    // Given an indirect call through r3 (LLVM encodes the register in the dst field)
    const source = entrypointWith(`  r3 = 0
  callx r3
  exit`);

    // When it is linked for SBPF v0
    const { program, report } = linkAssembly(source, 0);

    // Then the immediate names r3
    const callx = textInstructions(program).find((instruction) => instruction.opcode === CALLX);
    assert.equal(callx?.immediate, 3);
    assert.equal(report.callxPatched, 1);
  });

  test("a syscall becomes call -1 with an R_BPF_64_32 relocation against a .dynsym entry of its name", () => {
    // Given two calls to sol_log_ and one to sol_log_64_
    const source = entrypointWith(`  call sol_log_
  call sol_log_64_
  call sol_log_
  exit`);

    // When it is linked for SBPF v0
    const { program, report } = linkAssembly(source, 0);

    // Then every call site keeps imm -1 and gets a dynamic relocation naming the syscall
    const calls = textInstructions(program).filter((instruction) => instruction.opcode === CALL);
    assert.deepEqual(
      calls.map((call) => call.immediate),
      [-1, -1, -1],
    );
    assert.deepEqual(
      dynamicRelocations(program),
      calls.map((call, i) => ({
        offset: call.fileOffset,
        type: BpfRelocation.R_BPF_64_32,
        symbolName: i === 1 ? "sol_log_64_" : "sol_log_",
      })),
    );
    assert.deepEqual(report.syscalls, ["sol_log_", "sol_log_64_"]);
  });

  test("a call to an undefined symbol that is not a Solana syscall is refused", () => {
    // Given a call to memcmp, a compiler runtime helper the runtime does not provide
    const source = entrypointWith(`  call memcmp
  exit`);

    // When it is linked, then the link fails naming the symbol
    const error = assertLinkError(source, "SBPF_LINK__UNKNOWN_SYSCALL");
    assert.match(error.message, /memcmp/);
  });
});

describe("sbpf-link v0: read-only data", { skip }, () => {
  const source = entrypointWith(
    `  r1 = greeting ll
  r2 = table ll
  r3 = constant ll
  exit`,
    `  .section .rodata.str1.1,"aMS",@progbits,1
greeting:
  .asciz "hello"

  .section .rodata.cst8,"aM",@progbits,8
  .p2align 3
constant:
  .quad 0x1122334455667788

  .section .data.rel.ro,"aw",@progbits
  .p2align 3
table:
  .quad entrypoint
  .quad greeting+2`,
  );

  test("all read-only sections are merged into one .rodata that lddw addresses at 0x1_0000_0000 + offset", () => {
    // Given strings, constants and a relocated table in three read-only sections
    // When it is linked for SBPF v0
    const { program, report } = linkAssembly(source, 0);

    // Then the output has exactly one .rodata holding all three
    const elf = readElf(program);
    assert.deepEqual(report.rodataInputs, [".rodata.str1.1", ".rodata.cst8", ".data.rel.ro"]);
    assert.deepEqual(
      elf.sections
        .map((section) => section.name)
        .filter((name) => name.startsWith(".rodata") || name.startsWith(".data")),
      [".rodata"],
    );
    // And each lddw holds the program address of its target
    const lddws = textInstructions(program).filter((instruction) => instruction.opcode === LDDW);
    const [greeting, table, constant] = lddws.map((lddw) => lddwAddress(program, lddw.fileOffset));
    const at = (address: bigint | undefined): number => Number((address ?? 0n) - SBPF_PROGRAM_VADDR);
    assert.equal(new TextDecoder().decode(program.subarray(at(greeting), at(greeting) + 5)), "hello");
    assert.equal(Buffer.from(program).readBigUInt64LE(at(constant)), 0x1122334455667788n);
    // And pointers stored in the table are final program addresses (entrypoint, greeting + 2)
    assert.equal(Buffer.from(program).readBigUInt64LE(at(table)), SBPF_PROGRAM_VADDR + BigInt(elf.entry));
    assert.equal(Buffer.from(program).readBigUInt64LE(at(table) + 8), (greeting ?? 0n) + 2n);
  });

  test("the output has the shape the deploy-time loader checks", () => {
    // Given a program linked for SBPF v0
    const { program } = linkAssembly(source, 0);
    const elf = readElf(program);

    // Then it is an SBPF v0 shared object for EM_BPF whose entry is the entrypoint
    assert.equal(elf.type, ElfType.DYN);
    assert.equal(elf.machine, EM_BPF);
    assert.equal(elf.flags, 0);
    assert.equal(elf.osabi, 0);
    assert.equal(elf.entry, requireSection(elf, ".text").offset);
    // And loaded sections sit at their file offsets, in ascending order, with short names
    const loaded = elf.sections.filter((section) => (section.flags & SectionFlag.ALLOC) !== 0);
    for (const section of loaded) assert.equal(section.addr, section.offset, section.name);
    const offsets = elf.sections.slice(1).map((section) => section.offset);
    assert.deepEqual(
      offsets,
      [...offsets].sort((a, b) => a - b),
    );
    for (const section of elf.sections) assert.ok(section.name.length < 16, section.name);
    // And PT_DYNAMIC describes .dynamic, whose DT_SYMTAB is .dynsym's address
    const dynamicHeader = elf.programHeaders.find((header) => header.type === 2);
    const dynamic = requireSection(elf, ".dynamic");
    assert.equal(dynamicHeader?.offset, dynamic.offset);
    const symtab = Buffer.from(dynamic.data).readBigUInt64LE(8);
    assert.equal(Number(symtab), findSection(elf, ".dynsym")?.addr);
    // And the PT_LOAD segments ascend
    const loads = elf.programHeaders.filter((header) => header.type === 1).map((header) => header.vaddr);
    assert.deepEqual(
      loads,
      [...loads].sort((a, b) => a - b),
    );
  });

  test("linking is deterministic", () => {
    // Given one object, when it is linked twice, then the bytes are identical
    const object = assembleBpf(source);
    assert.deepEqual(linkSbpfProgram(object).program, linkSbpfProgram(object).program);
  });
});

describe("sbpf-link: refusals", { skip }, () => {
  test("writable .data is refused with SBPF_LINK__WRITABLE_SECTION", () => {
    // Given a mutable static in .data
    const source = entrypointWith(
      "  exit",
      `  .data
counter:
  .quad 1`,
    );
    // When it is linked, then the link fails naming the section
    const error = assertLinkError(source, "SBPF_LINK__WRITABLE_SECTION");
    assert.deepEqual(error.context, { section: ".data" });
  });

  test(".bss is refused with SBPF_LINK__WRITABLE_SECTION", () => {
    // Given a zero-initialized mutable static in .bss
    const source = entrypointWith(
      "  exit",
      `  .section .bss,"aw",@nobits
buffer:
  .zero 16`,
    );
    // When it is linked, then the link fails naming the section
    const error = assertLinkError(source, "SBPF_LINK__WRITABLE_SECTION");
    assert.deepEqual(error.context, { section: ".bss" });
  });

  const unsupported: Array<[string, string, RegExp, SbpfVersion]> = [
    ["32-bit ALU arithmetic", "w0 += 1", /32-bit ALU/, 3],
    ["32-bit ALU arithmetic", "w0 += 1", /32-bit ALU/, 0],
    ["a JMP32 conditional jump", "if w1 > 3 goto +0", /JMP32/, 0],
    ["an atomic add", "lock *(u64 *)(r1 + 0) += r2", /atomic/, 3],
    ["a cpu v4 signed division", "r0 s/= r1", /cpu v4/, 3],
    ["a cpu v4 sign-extending load", "r0 = *(s8 *)(r1 + 0)", /cpu v4/, 3],
  ];
  for (const [description, instruction, reason, version] of unsupported) {
    test(`for SBPF v${version}, ${description} is refused with SBPF_LINK__UNSUPPORTED_INSTRUCTION and its offset`, () => {
      // Given the instruction as the third one of the entrypoint
      const source = entrypointWith(`  r0 = 0
  r1 = 0
  ${instruction}
  exit`);
      // When it is linked, then the link fails pointing at .text+0x10
      const error = assertLinkError(source, "SBPF_LINK__UNSUPPORTED_INSTRUCTION", version);
      assert.equal(error.context.section, ".text");
      assert.equal(error.context.offset, 0x10);
      assert.match(error.context.reason, reason);
      assert.match(error.message, /\.text\+0x10/);
      assert.equal(error.context.version, version);
    });
  }

  test("instructions SBPF shares with eBPF pass: mov32 immediate and byte swaps", () => {
    // Given the only 32-bit ALU instructions LLVM emits that behave the same on SBPF
    const source = entrypointWith(`  w0 = 5
  r0 = be64 r0
  r0 = le16 r0
  exit`);
    // When it is linked, then it links
    assert.doesNotThrow(() => linkAssembly(source));
  });

  test("an object without an entrypoint is refused with SBPF_LINK__MISSING_ENTRYPOINT", () => {
    // Given code whose only function is called main
    const source = `
  .text
  .globl main
main:
  exit
`;
    // When it is linked, then the link fails asking for the entrypoint
    const error = assertLinkError(source, "SBPF_LINK__MISSING_ENTRYPOINT");
    assert.match(error.message, /entrypoint/);
  });

  test("input that is not a BPF relocatable object is refused with SBPF_LINK__NOT_A_BPF_OBJECT", () => {
    // Given bytes that are not ELF, and an already linked program
    const linked = linkAssembly(entrypointWith("  exit")).program;
    // When they are linked, then both are refused
    for (const input of [new TextEncoder().encode("not an object"), linked]) {
      assert.throws(
        () => linkSbpfProgram(input),
        (error: unknown) => isSbpfLinkError(error, "SBPF_LINK__NOT_A_BPF_OBJECT"),
      );
    }
  });
});

describe("sbpf-link: error codes", () => {
  // One sample context per code: adding a code without a sample fails the type check.
  const samples: { [C in SbpfLinkErrorCode]: SbpfLinkErrorContext[C] } = {
    SBPF_LINK__NOT_A_BPF_OBJECT: { reason: "no ELF header" },
    SBPF_LINK__MALFORMED_OBJECT: { reason: "truncated" },
    SBPF_LINK__WRITABLE_SECTION: { section: ".data" },
    SBPF_LINK__UNSUPPORTED_INSTRUCTION: {
      section: ".text",
      offset: 8,
      opcode: 0x04,
      reason: "ALU32",
      version: 3,
    },
    SBPF_LINK__UNSUPPORTED_RELOCATION: { section: ".text", offset: 8, relocationType: 3, symbol: "x" },
    SBPF_LINK__UNDEFINED_SYMBOL: { symbol: "x", section: ".text", offset: 8 },
    SBPF_LINK__SYMBOL_OUTSIDE_PROGRAM: { symbol: "x", section: ".debug_info" },
    SBPF_LINK__CALL_TARGET_OUTSIDE_TEXT: { symbol: "x", section: ".text", offset: 8 },
    SBPF_LINK__UNKNOWN_SYSCALL: { name: "memcmp", section: ".text", offset: 8 },
    SBPF_LINK__MISSING_ENTRYPOINT: { entrypoint: "entrypoint" },
    SBPF_LINK__VERIFIER_REJECTED: {
      rule: "JumpOutOfCode",
      section: ".text",
      offset: 8,
      opcode: 0x05,
      detail: "jump to instruction 9 of 2",
      version: 3,
    },
  };

  test("every code is namespaced, unique, and has its own message", () => {
    // Given every error code, when each is raised with its sample context
    const errors = SBPF_LINK_ERROR_CODES.map((code) => new SbpfLinkError(code, samples[code]));
    // Then codes are SBPF_LINK__*, each error is recognized by its code, and messages differ
    assert.deepEqual([...SBPF_LINK_ERROR_CODES].sort(), Object.keys(samples).sort());
    for (const error of errors) {
      assert.match(error.code, /^SBPF_LINK__[A-Z_]+$/);
      assert.ok(isSbpfLinkError(error, error.code));
      assert.equal(error.name, "SbpfLinkError");
    }
    assert.equal(new Set(errors.map((error) => error.message)).size, errors.length);
  });
});
