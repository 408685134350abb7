import {
  LIBC_FUNCTION_SYSCALL,
  libcFunctionShim,
  MEMORY_SHIM_SYSCALL,
  memoryShim,
  memoryShimName,
  signedDivisionShim,
  signedDivisionShimName,
  SYSCALL_DECLARATIONS,
  umulWithOverflowExpansion,
  type IntegerType,
  type LibcFunction,
  type MemoryIntrinsic,
  type ShimSyscall,
  type SignedDivision,
} from "./ir-shims.js";
import {
  findClosingParenthesis,
  isIntegerLiteral,
  operandAlignment,
  operandValue,
  splitTopLevel,
} from "./ir-syntax.js";

/**
 * Rewrites of optimized LLVM IR so that upstream LLVM's BPF backend can lower it for SBPF (v3 and v0 alike).
 * Each rewrite targets one construct llc would otherwise turn into an unsupported library call
 * or an instruction SBPF lacks.
 */

export interface IrFixupReport {
  /** `"target-cpu"` attributes set to v2: core's bitcode says "generic", a cpu with ALU32 and JMP32. */
  targetCpuAttributes: number;
  /** llvm.mem* calls routed to the sol_mem*_ syscalls, by intrinsic. */
  memoryIntrinsicCalls: Record<MemoryIntrinsic, number>;
  /** Undefined C library functions (memcmp, bcmp, memcpy, ...) defined in the module on syscalls. */
  libcFunctions: LibcFunction[];
  signedDivisions: Record<SignedDivision, number>;
  umulWithOverflow: number;
}

export interface IrFixupResult {
  ir: string;
  report: IrFixupReport;
}

/**
 * Above this many loads/stores a mem* intrinsic goes to the syscall. llc-22 expands up to 1 KiB
 * inline and emits an unsupported libcall beyond; this limit is never above that, and a sol_mem*_
 * call (about 10 compute units) beats a long run of narrow stores (1 unit each).
 */
export const MAX_INLINE_MEMORY_OPERATIONS = 128;
const WIDEST_MEMORY_OPERATION = 8;

const MEMORY_INTRINSICS: Record<MemoryIntrinsic, { callee: string; pointerOperands: number }> = {
  memcpy: { callee: "@llvm.memcpy.p0.p0.i64", pointerOperands: 2 },
  memmove: { callee: "@llvm.memmove.p0.p0.i64", pointerOperands: 2 },
  memset: { callee: "@llvm.memset.p0.i64", pointerOperands: 1 },
};
const LENGTH_OPERAND = 2;

/** Loads/stores the backend would emit for `length` bytes: widest aligned chunks, then the tail. */
export function memoryOperationCount(length: number, alignment: number): number {
  const width = Math.min(alignment, WIDEST_MEMORY_OPERATION);
  const tail = length % width;
  let tailOperations = 0;
  for (let bit = tail; bit > 0; bit >>= 1) tailOperations += bit & 1;
  return Math.floor(length / width) + tailOperations;
}

/** Whether this llvm.mem* call must (or had better) be a syscall instead of inline code. */
export function shouldUseMemorySyscall(operands: string[], pointerOperands: number): boolean {
  const length = operandValue(operands[LENGTH_OPERAND] ?? "");
  if (!isIntegerLiteral(length)) return true;
  const alignment = Math.min(...operands.slice(0, pointerOperands).map(operandAlignment));
  return memoryOperationCount(Number(length), alignment) > MAX_INLINE_MEMORY_OPERATIONS;
}

export function rewriteTargetCpu(ir: string): { ir: string; count: number } {
  let count = 0;
  const rewritten = ir.replace(/"target-cpu"="([^"]*)"/g, (attribute, cpu: string) => {
    if (cpu === "v2") return attribute;
    count += 1;
    return '"target-cpu"="v2"';
  });
  return { ir: rewritten, count };
}

/**
 * Routes one llvm.mem* call to its syscall shim when its length is only known at run time or
 * needs more than MAX_INLINE_MEMORY_OPERATIONS loads/stores; undefined when it stays inline.
 */
export function rewriteMemoryIntrinsicCall(
  line: string,
): { line: string; kind: MemoryIntrinsic } | undefined {
  if (/^\s*declare\b/.test(line) || !line.includes("call void @llvm.mem")) return undefined;
  for (const [kind, { callee, pointerOperands }] of Object.entries(MEMORY_INTRINSICS) as Array<
    [MemoryIntrinsic, (typeof MEMORY_INTRINSICS)[MemoryIntrinsic]]
  >) {
    const at = line.indexOf(`${callee}(`);
    if (at < 0) continue;
    const open = at + callee.length;
    const close = findClosingParenthesis(line, open);
    if (close < 0) return undefined;
    if (!shouldUseMemorySyscall(splitTopLevel(line.slice(open + 1, close)), pointerOperands))
      return undefined;
    return { line: line.slice(0, at) + memoryShimName(kind) + line.slice(open), kind };
  }
  return undefined;
}

const SIGNED_DIVISION = /^(\s*)(%[-\w.$]+|%"[^"]*") = (sdiv|srem)(?: exact)? (i8|i16|i32|i64) (.*)$/;

/** `%q = sdiv i64 %a, %b` -> `%q = call i64 @__sbpf_sdiv_i64(i64 %a, i64 %b)`; undefined if not one. */
export function rewriteSignedDivision(
  line: string,
): { line: string; op: SignedDivision; type: IntegerType } | undefined {
  const match = SIGNED_DIVISION.exec(line);
  if (!match) return undefined;
  const [, indent = "", result = "", operation = "", width = "", rest = ""] = match;
  const op = operation as SignedDivision;
  const type = width as IntegerType;
  const [dividend, divisor, ...metadata] = splitTopLevel(rest);
  const call = `call ${type} ${signedDivisionShimName(op, type)}(${type} ${dividend}, ${type} ${divisor})`;
  const attachments = metadata.length > 0 ? `, ${metadata.join(", ")}` : "";
  return { line: `${indent}${result} = ${call}${attachments}`, op, type };
}

const UMUL_WITH_OVERFLOW =
  /^(\s*)(%[-\w.$]+|%"[^"]*") = (?:(?:tail|notail|musttail) )?call \{ i64, i1 \} @llvm\.umul\.with\.overflow\.i64\(/;

/** Expands `llvm.umul.with.overflow.i64` (u64::checked_mul and friends) without i128 arithmetic. */
export function expandUmulWithOverflow(line: string, uniqueId: number): string | undefined {
  const match = UMUL_WITH_OVERFLOW.exec(line);
  if (!match) return undefined;
  const [prefix, indent = "", result = ""] = match;
  const open = prefix.length - 1;
  const close = findClosingParenthesis(line, open);
  if (close < 0) return undefined;
  const [lhs, rhs] = splitTopLevel(line.slice(open + 1, close)).map(operandValue);
  if (lhs === undefined || rhs === undefined) return undefined;
  return umulWithOverflowExpansion(result, lhs, rhs, `sbpf.umulo.${uniqueId}`, indent);
}

const LIBC_DECLARATION = /^declare\b[^@]*@(memcpy|memmove|memset|memcmp|bcmp)\(/;

/**
 * A declaration of memcmp/bcmp (slice comparisons) or memcpy/memmove/memset becomes a definition
 * on the syscalls: left undefined, it would reach the linker as a call to an unknown symbol.
 */
export function defineLibcFunction(line: string): { line: string; name: LibcFunction } | undefined {
  const name = LIBC_DECLARATION.exec(line)?.[1] as LibcFunction | undefined;
  return name === undefined ? undefined : { line: libcFunctionShim(name), name };
}

function isDeclaredOrDefined(ir: string, functionName: string): boolean {
  return new RegExp(`^(declare|define)\\b[^\\n]*@${functionName}\\(`, "m").test(ir);
}

function appendedDefinitions(ir: string, report: IrFixupReport, signedShims: Set<string>): string[] {
  const definitions: string[] = [];
  const syscalls = new Set<ShimSyscall>();
  for (const kind of Object.keys(MEMORY_INTRINSICS) as MemoryIntrinsic[]) {
    if (report.memoryIntrinsicCalls[kind] === 0) continue;
    definitions.push(memoryShim(kind));
    syscalls.add(MEMORY_SHIM_SYSCALL[kind]);
  }
  for (const name of report.libcFunctions) syscalls.add(LIBC_FUNCTION_SYSCALL[name]);
  for (const key of [...signedShims].sort()) {
    const [op, type] = key.split(":") as [SignedDivision, IntegerType];
    definitions.push(signedDivisionShim(op, type));
  }
  for (const syscall of syscalls) {
    if (!isDeclaredOrDefined(ir, syscall)) definitions.push(SYSCALL_DECLARATIONS[syscall]);
  }
  return definitions;
}

export function applyIrFixups(ir: string): IrFixupResult {
  const targetCpu = rewriteTargetCpu(ir);
  const report: IrFixupReport = {
    targetCpuAttributes: targetCpu.count,
    memoryIntrinsicCalls: { memcpy: 0, memmove: 0, memset: 0 },
    libcFunctions: [],
    signedDivisions: { sdiv: 0, srem: 0 },
    umulWithOverflow: 0,
  };
  const signedShims = new Set<string>();

  const lines = targetCpu.ir.split("\n").map((line) => {
    const memory = rewriteMemoryIntrinsicCall(line);
    if (memory) {
      report.memoryIntrinsicCalls[memory.kind] += 1;
      return memory.line;
    }
    const division = rewriteSignedDivision(line);
    if (division) {
      report.signedDivisions[division.op] += 1;
      signedShims.add(`${division.op}:${division.type}`);
      return division.line;
    }
    const multiplication = expandUmulWithOverflow(line, report.umulWithOverflow);
    if (multiplication !== undefined) {
      report.umulWithOverflow += 1;
      return multiplication;
    }
    const libcFunction = defineLibcFunction(line);
    if (libcFunction) {
      report.libcFunctions.push(libcFunction.name);
      return libcFunction.line;
    }
    return line;
  });

  const rewritten = lines.join("\n");
  const definitions = appendedDefinitions(rewritten, report, signedShims);
  const ending = rewritten.endsWith("\n") ? "" : "\n";
  return {
    ir: definitions.length > 0 ? `${rewritten}${ending}\n${definitions.join("\n\n")}\n` : rewritten,
    report,
  };
}

/** One line for build logs, e.g. "2 memcpy, 1 memset -> syscalls; 4 target-cpu -> v2". */
export function summarizeIrFixups(report: IrFixupReport): string {
  const counted = (entries: Array<[string, number]>): string[] =>
    entries.filter(([, count]) => count > 0).map(([name, count]) => `${count} ${name}`);
  const parts: string[] = [];
  const memory = counted(Object.entries(report.memoryIntrinsicCalls));
  if (memory.length > 0) parts.push(`${memory.join(", ")} -> sol_mem*_ syscalls`);
  if (report.libcFunctions.length > 0) parts.push(`${report.libcFunctions.join(", ")} defined on syscalls`);
  const divisions = counted(Object.entries(report.signedDivisions));
  if (divisions.length > 0) parts.push(`${divisions.join(", ")} -> unsigned division`);
  if (report.umulWithOverflow > 0) parts.push(`${report.umulWithOverflow} umul.with.overflow expanded`);
  if (report.targetCpuAttributes > 0) parts.push(`${report.targetCpuAttributes} target-cpu -> v2`);
  return parts.length > 0 ? parts.join("; ") : "nothing to rewrite";
}
