import type { SbpfVersion } from "./sbpf-version.js";
import type { SbpfVerifierRule } from "./verifier.js";

/** What each link error reports, by code. Codes are stable: scripts and tests match on them. */
export interface SbpfLinkErrorContext {
  SBPF_LINK__NOT_A_BPF_OBJECT: { reason: string };
  SBPF_LINK__MALFORMED_OBJECT: { reason: string };
  SBPF_LINK__WRITABLE_SECTION: { section: string };
  SBPF_LINK__UNSUPPORTED_INSTRUCTION: {
    section: string;
    offset: number;
    opcode: number;
    reason: string;
    version: SbpfVersion;
  };
  SBPF_LINK__UNSUPPORTED_RELOCATION: {
    section: string;
    offset: number;
    relocationType: number;
    symbol: string;
  };
  SBPF_LINK__UNDEFINED_SYMBOL: { symbol: string; section: string; offset: number };
  SBPF_LINK__SYMBOL_OUTSIDE_PROGRAM: { symbol: string; section: string };
  SBPF_LINK__CALL_TARGET_OUTSIDE_TEXT: { symbol: string; section: string; offset: number };
  SBPF_LINK__UNKNOWN_SYSCALL: { name: string; section: string; offset: number };
  SBPF_LINK__MISSING_ENTRYPOINT: { entrypoint: string };
  SBPF_LINK__VERIFIER_REJECTED: {
    /** The runtime's name for the rule (solana-sbpf's VerifierError / EbpfError variant). */
    rule: SbpfVerifierRule;
    section: string;
    offset: number;
    opcode: number;
    detail: string;
    version: SbpfVersion;
  };
}

export type SbpfLinkErrorCode = keyof SbpfLinkErrorContext;

const hex = (value: number): string => `0x${value.toString(16)}`;

const MESSAGES: { [C in SbpfLinkErrorCode]: (context: SbpfLinkErrorContext[C]) => string } = {
  SBPF_LINK__NOT_A_BPF_OBJECT: ({ reason }) =>
    `Input is not a relocatable eBPF object (llc -march=bpfel -filetype=obj): ${reason}`,
  SBPF_LINK__MALFORMED_OBJECT: ({ reason }) => `Malformed ELF object: ${reason}`,
  SBPF_LINK__WRITABLE_SECTION: ({ section }) =>
    `Writable section ${section} found: SBPF programs cannot have writable data (no \`static mut\`, ` +
    `no interior mutability in statics); keep mutable state on the stack or in accounts`,
  SBPF_LINK__UNSUPPORTED_INSTRUCTION: ({ section, offset, opcode, reason, version }) =>
    `Instruction ${hex(opcode)} at ${section}+${hex(offset)} is not supported by SBPF v${version}: ${reason}`,
  SBPF_LINK__UNSUPPORTED_RELOCATION: ({ section, offset, relocationType, symbol }) =>
    `Relocation type ${relocationType} at ${section}+${hex(offset)} (symbol ${symbol}) is not supported`,
  SBPF_LINK__UNDEFINED_SYMBOL: ({ symbol, section, offset }) =>
    `The address of undefined symbol ${symbol} is taken at ${section}+${hex(offset)}; ` +
    `only calls may target undefined symbols (they become syscalls)`,
  SBPF_LINK__SYMBOL_OUTSIDE_PROGRAM: ({ symbol, section }) =>
    `Symbol ${symbol} lives in section ${section}, which is not part of the program image`,
  SBPF_LINK__CALL_TARGET_OUTSIDE_TEXT: ({ symbol, section, offset }) =>
    `The call at ${section}+${hex(offset)} targets ${symbol}, which is not code`,
  SBPF_LINK__UNKNOWN_SYSCALL: ({ name, section, offset }) =>
    `The call at ${section}+${hex(offset)} targets undefined symbol ${name}, which is not a Solana syscall ` +
    `(a missing function, or a compiler runtime helper such as memcmp or __multi3)`,
  SBPF_LINK__MISSING_ENTRYPOINT: ({ entrypoint }) =>
    `No function named ${entrypoint} is defined in the object's code; export ` +
    `\`#[no_mangle] pub unsafe extern "C" fn ${entrypoint}(input: *mut u8) -> u64\``,
  SBPF_LINK__VERIFIER_REJECTED: ({ rule, section, offset, opcode, detail, version }) =>
    `The SBPF v${version} verifier would reject instruction ${hex(opcode)} at ${section}+${hex(offset)} ` +
    `(${rule}): ${detail}`,
};

export class SbpfLinkError<C extends SbpfLinkErrorCode = SbpfLinkErrorCode> extends Error {
  readonly code: C;
  readonly context: SbpfLinkErrorContext[C];

  constructor(code: C, context: SbpfLinkErrorContext[C]) {
    super(MESSAGES[code](context));
    this.name = "SbpfLinkError";
    this.code = code;
    this.context = context;
  }
}

export function isSbpfLinkError<C extends SbpfLinkErrorCode>(
  error: unknown,
  code?: C,
): error is SbpfLinkError<C> {
  return error instanceof SbpfLinkError && (code === undefined || error.code === code);
}

export const SBPF_LINK_ERROR_CODES = Object.keys(MESSAGES) as SbpfLinkErrorCode[];
