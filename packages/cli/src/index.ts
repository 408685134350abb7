export { COMMANDS, runCli, USAGE } from "./cli.js";
export { processIo, type CliIo, type CommandContext } from "./cli-io.js";
export type { Command, CommandEntry } from "./commands/command.js";
export {
  describeFailure,
  EXIT_FAILED,
  EXIT_OK,
  EXIT_USAGE,
  getErrorCodeName,
  type ErrorReport,
} from "./report-error.js";
export { parseBatchFile, type BatchFileItem } from "./batch-file.js";
