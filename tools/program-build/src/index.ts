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
export { SOLANA_SYSCALLS } from "./sbpf-link/syscalls.js";
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
