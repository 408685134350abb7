export {
  applyIrFixups,
  summarizeIrFixups,
  MAX_INLINE_MEMORY_OPERATIONS,
  type IrFixupReport,
  type IrFixupResult,
} from "./ir-fixups.js";
export {
  linkSbpfProgram,
  type SbpfLinkOptions,
  type SbpfLinkReport,
  type SbpfLinkResult,
} from "./sbpf-link/link.js";
export {
  isSbpfLinkError,
  SbpfLinkError,
  SBPF_LINK_ERROR_CODES,
  type SbpfLinkErrorCode,
  type SbpfLinkErrorContext,
} from "./sbpf-link/errors.js";
export { SOLANA_SYSCALLS, syscallHash } from "./sbpf-link/syscalls.js";
export { murmur3 } from "./sbpf-link/murmur3.js";
export {
  DEFAULT_SBPF_VERSION,
  DISABLE_SBPF_V0_V1_V2_DEPLOYMENT_FEATURE,
  parseSbpfVersion,
  SBPF_VERSIONS,
  type SbpfVersion,
} from "./sbpf-link/sbpf-version.js";
export {
  findVerifierViolation,
  type SbpfVerifierRule,
  type VerifierContext,
  type VerifierFinding,
} from "./sbpf-link/verifier.js";
export {
  buildProgram,
  RUSTC_OPT_LEVEL,
  sha256Hex,
  type BuildInfo,
  type BuildProgramOptions,
  type BuildProgramResult,
} from "./build-program.js";
export {
  ensureToolchain,
  locateToolchain,
  missingToolchainParts,
  TOOLCHAIN_INSTALL_COMMAND,
  ToolchainMissingError,
  type Toolchain,
} from "./toolchain.js";
export { runHostTests, type HostTestOptions } from "./host-tests.js";
export { ToolFailedError } from "./run-tool.js";
