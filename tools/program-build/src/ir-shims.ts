/** LLVM IR of the internal functions the IR fix-ups route unsupported operations to. */

export type MemoryIntrinsic = "memcpy" | "memmove" | "memset";
export type SignedDivision = "sdiv" | "srem";
export type IntegerType = "i8" | "i16" | "i32" | "i64";

export const memoryShimName = (kind: MemoryIntrinsic): string => `@__sbpf_${kind}`;
export const signedDivisionShimName = (op: SignedDivision, type: IntegerType): string =>
  `@__sbpf_${op}_${type}`;

/** Declarations of the Solana syscalls the shims call, as the runtime defines them. */
export const SYSCALL_DECLARATIONS = {
  sol_memcpy_: "declare void @sol_memcpy_(ptr, ptr, i64)",
  sol_memmove_: "declare void @sol_memmove_(ptr, ptr, i64)",
  sol_memset_: "declare void @sol_memset_(ptr, i8, i64)",
  sol_memcmp_: "declare void @sol_memcmp_(ptr, ptr, i64, ptr)",
} as const;

export type ShimSyscall = keyof typeof SYSCALL_DECLARATIONS;

export const MEMORY_SHIM_SYSCALL: Record<MemoryIntrinsic, ShimSyscall> = {
  memcpy: "sol_memcpy_",
  memmove: "sol_memmove_",
  memset: "sol_memset_",
};

/** Same parameters as the intrinsic (the trailing i1 is its `volatile` flag), body: the syscall. */
export function memoryShim(kind: MemoryIntrinsic): string {
  const syscall = MEMORY_SHIM_SYSCALL[kind];
  const [parameters, arguments_] =
    kind === "memset"
      ? ["ptr %dst, i8 %value, i64 %len, i1 %volatile", "ptr %dst, i8 %value, i64 %len"]
      : ["ptr %dst, ptr %src, i64 %len, i1 %volatile", "ptr %dst, ptr %src, i64 %len"];
  return [
    `define internal void ${memoryShimName(kind)}(${parameters}) nounwind {`,
    `  call void @${syscall}(${arguments_})`,
    "  ret void",
    "}",
  ].join("\n");
}

export type LibcFunction = "memcpy" | "memmove" | "memset" | "memcmp" | "bcmp";

export const LIBC_FUNCTION_SYSCALL: Record<LibcFunction, ShimSyscall> = {
  memcpy: "sol_memcpy_",
  memmove: "sol_memmove_",
  memset: "sol_memset_",
  memcmp: "sol_memcmp_",
  bcmp: "sol_memcmp_",
};

/** A C library function with its usual signature, implemented by the matching syscall. */
export function libcFunctionShim(name: LibcFunction): string {
  switch (name) {
    case "memcpy":
    case "memmove":
      return [
        `define internal ptr @${name}(ptr %dst, ptr %src, i64 %len) nounwind {`,
        `  call void @${LIBC_FUNCTION_SYSCALL[name]}(ptr %dst, ptr %src, i64 %len)`,
        "  ret ptr %dst",
        "}",
      ].join("\n");
    case "memset":
      return [
        "define internal ptr @memset(ptr %dst, i32 %value, i64 %len) nounwind {",
        "  %byte = trunc i32 %value to i8",
        "  call void @sol_memset_(ptr %dst, i8 %byte, i64 %len)",
        "  ret ptr %dst",
        "}",
      ].join("\n");
    case "memcmp":
    case "bcmp":
      // sol_memcmp_ reports the comparison through an out-parameter.
      return [
        `define internal i32 @${name}(ptr %left, ptr %right, i64 %len) nounwind {`,
        "  %result = alloca i32, align 4",
        "  call void @sol_memcmp_(ptr %left, ptr %right, i64 %len, ptr %result)",
        "  %value = load i32, ptr %result, align 4",
        "  ret i32 %value",
        "}",
      ].join("\n");
  }
}

/**
 * Signed division from unsigned division of magnitudes. The quotient is negative when the signs
 * differ, the remainder takes the dividend's sign: the same results as `sdiv`/`srem` for every
 * input on which those are defined.
 */
export function signedDivisionShim(op: SignedDivision, type: IntegerType): string {
  const unsignedOp = op === "sdiv" ? "udiv" : "urem";
  const negativeResult = op === "sdiv" ? ["  %negative = xor i1 %dividend.negative, %divisor.negative"] : [];
  const negativeFlag = op === "sdiv" ? "%negative" : "%dividend.negative";
  return [
    `define internal ${type} ${signedDivisionShimName(op, type)}(${type} %dividend, ${type} %divisor) nounwind {`,
    `  %dividend.negative = icmp slt ${type} %dividend, 0`,
    `  %divisor.negative = icmp slt ${type} %divisor, 0`,
    `  %dividend.negated = sub ${type} 0, %dividend`,
    `  %divisor.negated = sub ${type} 0, %divisor`,
    `  %dividend.magnitude = select i1 %dividend.negative, ${type} %dividend.negated, ${type} %dividend`,
    `  %divisor.magnitude = select i1 %divisor.negative, ${type} %divisor.negated, ${type} %divisor`,
    `  %magnitude = ${unsignedOp} ${type} %dividend.magnitude, %divisor.magnitude`,
    ...negativeResult,
    `  %negated = sub ${type} 0, %magnitude`,
    `  %result = select i1 ${negativeFlag}, ${type} %negated, ${type} %magnitude`,
    `  ret ${type} %result`,
    "}",
  ].join("\n");
}

/**
 * `{ product, overflowed }` of two u64 without the i128 multiply LLVM would otherwise emit
 * (a __multi3 libcall): the product overflowed iff lhs != 0 and product / lhs != rhs.
 */
export function umulWithOverflowExpansion(
  result: string,
  lhs: string,
  rhs: string,
  prefix: string,
  indent: string,
): string {
  const t = (name: string): string => `%${prefix}.${name}`;
  return [
    `${t("product")} = mul i64 ${lhs}, ${rhs}`,
    `${t("lhs.zero")} = icmp eq i64 ${lhs}, 0`,
    `${t("divisor")} = select i1 ${t("lhs.zero")}, i64 1, i64 ${lhs}`,
    `${t("quotient")} = udiv i64 ${t("product")}, ${t("divisor")}`,
    `${t("mismatch")} = icmp ne i64 ${t("quotient")}, ${rhs}`,
    `${t("overflow")} = select i1 ${t("lhs.zero")}, i1 false, i1 ${t("mismatch")}`,
    `${t("partial")} = insertvalue { i64, i1 } poison, i64 ${t("product")}, 0`,
    `${result} = insertvalue { i64, i1 } ${t("partial")}, i1 ${t("overflow")}, 1`,
  ]
    .map((line) => indent + line)
    .join("\n");
}
