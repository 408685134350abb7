/**
 * A tiny logger that writes one line per message to stderr: stdout belongs to the MCP protocol,
 * and the host shows the server's stderr in its logs.
 */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at =
    (name: Exclude<LogLevel, "silent">) =>
    (message: string): void => {
      if (LOG_LEVELS.indexOf(name) < threshold) return;
      write(`${new Date().toISOString()} abas-mcp ${name}: ${message}\n`);
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = createLogger("silent");
