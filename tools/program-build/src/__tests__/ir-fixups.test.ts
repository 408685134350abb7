import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  applyIrFixups,
  expandUmulWithOverflow,
  memoryOperationCount,
  rewriteMemoryIntrinsicCall,
  rewriteSignedDivision,
  rewriteTargetCpu,
} from "../ir-fixups.js";
import { runTool, ToolFailedError } from "../run-tool.js";
import { linkSbpfProgram } from "../sbpf-link/link.js";
import { skipWithoutTools } from "./helpers/toolchain.js";

const memcpyCall = (dst: string, src: string, length: string): string =>
  `  call void @llvm.memcpy.p0.p0.i64(ptr ${dst}, ptr ${src}, i64 ${length}, i1 false)`;

describe("ir-fixups: memory intrinsics", () => {
  test("a runtime-length memcpy is routed to the sol_memcpy_ shim", () => {
    // Given a copy whose length is only known at run time
    const line = memcpyCall("align 1 %dst", "align 1 %src", "range(i64 0, 201) %len");
    // When it is rewritten
    const rewritten = rewriteMemoryIntrinsicCall(line);
    // Then it calls the shim with the same operands
    assert.equal(
      rewritten?.line,
      "  call void @__sbpf_memcpy(ptr align 1 %dst, ptr align 1 %src, i64 range(i64 0, 201) %len, i1 false)",
    );
    assert.equal(rewritten?.kind, "memcpy");
  });

  test("a constant-length copy the backend expands inline (<= 128 loads/stores) is left alone", () => {
    // Given 1024 bytes at 8-byte alignment (128 doubleword moves) and 32 bytes at 1-byte alignment
    for (const line of [
      memcpyCall("align 8 %dst", "align 8 %src", "1024"),
      memcpyCall("align 1 %dst", "align 1 %src", "32"),
    ]) {
      // When rewritten, then nothing changes
      assert.equal(rewriteMemoryIntrinsicCall(line), undefined, line);
    }
  });

  test("a constant length needing more than 128 loads/stores at its alignment is routed to the shim", () => {
    // (llc only gives up beyond 1 KiB, but a syscall costs ~10 compute units where each store costs 1)
    // Given 1032 bytes at 8-byte alignment, 1024 bytes with an unaligned source, and 200 unaligned bytes
    const lines = [
      memcpyCall("align 8 %dst", "align 8 %src", "1032"),
      memcpyCall("align 8 %dst", "%src", "1024"),
      "  call void @llvm.memset.p0.i64(ptr noundef nonnull align 1 dereferenceable(200) %buf, i8 0, i64 200, i1 false)",
    ];
    // When rewritten, then each becomes a shim call
    assert.deepEqual(
      lines.map((line) => rewriteMemoryIntrinsicCall(line)?.kind),
      ["memcpy", "memcpy", "memset"],
    );
  });

  test("the load/store count follows the backend: widest aligned chunks, then the tail", () => {
    assert.equal(memoryOperationCount(1024, 8), 128);
    assert.equal(memoryOperationCount(13, 8), 3); // 8 + 4 + 1
    assert.equal(memoryOperationCount(64, 16), 8); // nothing wider than 8 bytes
    assert.equal(memoryOperationCount(200, 1), 200);
  });

  test("the module gains the shims and one declaration per syscall, keeping existing ones", () => {
    // Given a module that already declares sol_memcpy_ and uses memcpy and memmove at run-time length
    const ir = [
      "declare void @sol_memcpy_(ptr, ptr, i64)",
      "define void @f(ptr %a, ptr %b, i64 %n) {",
      memcpyCall("%a", "%b", "%n"),
      memcpyCall("%b", "%a", "%n"),
      "  call void @llvm.memmove.p0.p0.i64(ptr %a, ptr %b, i64 %n, i1 false)",
      "  ret void",
      "}",
    ].join("\n");
    // When the fix-ups run
    const { ir: fixed, report } = applyIrFixups(ir);
    // Then both intrinsics are counted and each shim and syscall is declared exactly once
    assert.deepEqual(report.memoryIntrinsicCalls, { memcpy: 2, memmove: 1, memset: 0 });
    assert.equal(fixed.match(/define internal void @__sbpf_memcpy\(/g)?.length, 1);
    assert.equal(fixed.match(/define internal void @__sbpf_memmove\(/g)?.length, 1);
    assert.equal(fixed.match(/declare void @sol_memcpy_\(/g)?.length, 1);
    assert.equal(fixed.match(/declare void @sol_memmove_\(/g)?.length, 1);
    assert.doesNotMatch(fixed, /@__sbpf_memset|@sol_memset_/);
  });

  test("an undefined memcmp or bcmp becomes an internal function calling sol_memcmp_", () => {
    // Given a module that compares slices through bcmp
    const ir = [
      "define i1 @eq(ptr %a, ptr %b) {",
      "  %r = call i32 @bcmp(ptr %a, ptr %b, i64 32)",
      "  %z = icmp eq i32 %r, 0",
      "  ret i1 %z",
      "}",
      "declare i32 @bcmp(ptr captures(none), ptr captures(none), i64) local_unnamed_addr #0",
    ].join("\n");
    // When the fix-ups run
    const { ir: fixed, report } = applyIrFixups(ir);
    // Then bcmp is defined in the module and the syscall declared
    assert.deepEqual(report.libcFunctions, ["bcmp"]);
    assert.match(fixed, /define internal i32 @bcmp\(ptr %left, ptr %right, i64 %len\)/);
    assert.match(fixed, /declare void @sol_memcmp_\(ptr, ptr, i64, ptr\)/);
    assert.doesNotMatch(fixed, /declare i32 @bcmp/);
  });

  test("an undefined memcpy or memset becomes an internal function on its syscall", () => {
    // Given direct calls to the C functions rather than to the intrinsics
    const ir = [
      "define void @f(ptr %a, ptr %b, i64 %n) {",
      "  %1 = call ptr @memcpy(ptr %a, ptr %b, i64 %n)",
      "  %2 = call ptr @memset(ptr %a, i32 0, i64 %n)",
      "  ret void",
      "}",
      "declare ptr @memcpy(ptr, ptr, i64)",
      "declare ptr @memset(ptr, i32, i64)",
    ].join("\n");
    // When the fix-ups run, then both are defined and call the syscalls
    const { ir: fixed, report } = applyIrFixups(ir);
    assert.deepEqual(report.libcFunctions, ["memcpy", "memset"]);
    assert.match(
      fixed,
      /define internal ptr @memcpy\(ptr %dst, ptr %src, i64 %len\)[^]*call void @sol_memcpy_/,
    );
    assert.match(
      fixed,
      /define internal ptr @memset\(ptr %dst, i32 %value, i64 %len\)[^]*call void @sol_memset_/,
    );
    assert.match(fixed, /^declare void @sol_memset_\(ptr, i8, i64\)$/m);
  });
});

describe("ir-fixups: target cpu, signed division, overflow checks", () => {
  test('every "target-cpu" attribute becomes "v2"', () => {
    // Given core's "generic" (cpu v3 in LLVM 22: ALU32 and JMP32) next to the crate's v2
    const ir = 'attributes #0 = { nounwind "target-cpu"="generic" }\nattributes #1 = { "target-cpu"="v2" }';
    // When rewritten, then both say v2 and one was changed
    const { ir: fixed, count } = rewriteTargetCpu(ir);
    assert.equal(
      fixed,
      'attributes #0 = { nounwind "target-cpu"="v2" }\nattributes #1 = { "target-cpu"="v2" }',
    );
    assert.equal(count, 1);
  });

  test("sdiv and srem become calls to unsigned-division shims, keeping metadata", () => {
    // Given signed divisions of two widths, one with a debug location
    const sdiv = rewriteSignedDivision("  %q = sdiv i64 %a, %b, !dbg !42");
    const srem = rewriteSignedDivision("  %r = srem exact i32 -7, %b");
    // Then they call per-type shims
    assert.equal(sdiv?.line, "  %q = call i64 @__sbpf_sdiv_i64(i64 %a, i64 %b), !dbg !42");
    assert.equal(srem?.line, "  %r = call i32 @__sbpf_srem_i32(i32 -7, i32 %b)");
    assert.equal(rewriteSignedDivision("  %u = udiv i64 %a, %b"), undefined);
  });

  test("the signed shims are defined once per operation and type, from udiv/urem", () => {
    // Given a function with two 64-bit sdivs and one srem
    const ir = [
      "define i64 @f(i64 %a, i64 %b) {",
      "  %q1 = sdiv i64 %a, %b",
      "  %q2 = sdiv i64 %q1, 3",
      "  %r = srem i64 %q2, %b",
      "  ret i64 %r",
      "}",
    ].join("\n");
    // When the fix-ups run
    const { ir: fixed, report } = applyIrFixups(ir);
    // Then two shims exist, neither uses a signed division
    assert.deepEqual(report.signedDivisions, { sdiv: 2, srem: 1 });
    assert.equal(fixed.match(/^define internal i64 @__sbpf_sdiv_i64/gm)?.length, 1);
    assert.equal(fixed.match(/^define internal i64 @__sbpf_srem_i64/gm)?.length, 1);
    assert.doesNotMatch(fixed, /= s(div|rem) /);
    assert.match(fixed, /udiv i64 %dividend.magnitude, %divisor.magnitude/);
  });

  test("llvm.umul.with.overflow.i64 is expanded without i128", () => {
    // Given a checked u64 multiplication
    const line = "  %m = tail call { i64, i1 } @llvm.umul.with.overflow.i64(i64 noundef %a, i64 24), !dbg !7";
    // When expanded
    const expanded = expandUmulWithOverflow(line, 0);
    // Then the result is rebuilt from a 64-bit multiply and a division check
    assert.ok(expanded);
    assert.doesNotMatch(expanded, /i128|@llvm\.umul/);
    assert.match(expanded, /%sbpf\.umulo\.0\.product = mul i64 %a, 24/);
    assert.match(expanded, /%sbpf\.umulo\.0\.quotient = udiv i64 %sbpf\.umulo\.0\.product/);
    assert.match(
      expanded,
      /^ {2}%m = insertvalue \{ i64, i1 \} %sbpf\.umulo\.0\.partial, i1 %sbpf\.umulo\.0\.overflow, 1$/m,
    );
  });

  test("a module without anything to fix comes back unchanged", () => {
    const ir = "define i64 @f(i64 %a) {\n  %b = add i64 %a, 1\n  ret i64 %b\n}\n";
    assert.equal(applyIrFixups(ir).ir, ir);
  });
});

describe("ir-fixups: against llc-22", { skip: skipWithoutTools(["llc-22"]) }, () => {
  const moduleWith = (body: string[]): string =>
    [
      'target datalayout = "e-m:e-p:64:64-i64:64-i128:128-n32:64-S128"',
      'target triple = "bpfel"',
      "",
      "define i64 @entrypoint(ptr %input) #0 {",
      "  %len = load i64, ptr %input",
      "  %src = getelementptr i8, ptr %input, i64 8",
      "  %a = load i64, ptr %src",
      "  %buf = alloca [256 x i8], align 8",
      ...body.map((line) => `  ${line}`),
      "}",
      "",
      "declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1 immarg)",
      "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1 immarg)",
      "declare { i64, i1 } @llvm.umul.with.overflow.i64(i64, i64)",
      "",
      'attributes #0 = { nounwind "target-cpu"="v2" }',
      "",
    ].join("\n");

  function compile(ir: string): Uint8Array {
    const directory = mkdtempSync(join(tmpdir(), "ir-fixups-test-"));
    try {
      writeFileSync(join(directory, "input.ll"), ir);
      const output = join(directory, "out.o");
      runTool("llc-22", [
        "-march=bpfel",
        "-mcpu=v2",
        "-filetype=obj",
        "-o",
        output,
        join(directory, "input.ll"),
      ]);
      return new Uint8Array(readFileSync(output));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  const cases: Array<[string, string[], RegExp]> = [
    [
      "a runtime-length memcpy",
      [
        "call void @llvm.memcpy.p0.p0.i64(ptr align 8 %buf, ptr align 1 %src, i64 %len, i1 false)",
        "ret i64 0",
      ],
      /built-in function 'memcpy'/,
    ],
    [
      "a 2 KiB memset",
      ["call void @llvm.memset.p0.i64(ptr align 8 %buf, i8 0, i64 2048, i1 false)", "ret i64 0"],
      /built-in function 'memset'/,
    ],
    ["a signed division", ["%q = sdiv i64 %a, %len", "ret i64 %q"], /unsupported signed division/],
    [
      "a checked multiplication",
      [
        "%m = call { i64, i1 } @llvm.umul.with.overflow.i64(i64 %a, i64 %len)",
        "%o = extractvalue { i64, i1 } %m, 1",
        "%r = zext i1 %o to i64",
        "ret i64 %r",
      ],
      /__multi3/,
    ],
  ];
  for (const [description, body, llcError] of cases) {
    test(`${description}: llc-22 refuses it as is and compiles it once fixed`, () => {
      // Given a module that needs the fix-up
      const ir = moduleWith(body);
      // When llc-22 compiles it unchanged, then it fails on the unsupported construct
      assert.throws(
        () => compile(ir),
        (error: unknown) => error instanceof ToolFailedError && llcError.test(error.message),
      );
      // When the fix-ups run first, then it compiles and links
      assert.doesNotThrow(() => linkSbpfProgram(compile(applyIrFixups(ir).ir)));
    });
  }
});
