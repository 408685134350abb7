/**
 * One line per event on stderr (stdout is reserved for the start-up banner that scripts parse):
 * `2026-11-21T17:35:00.000Z INFO transaction landed signature=5x.. slot=42`.
 */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Readonly<Record<string, string | number | bigint | boolean | null | undefined>>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

function formatValue(value: string | number | bigint | boolean | null): string {
  const text = String(value);
  return /[\s"=]/.test(text) || text === "" ? JSON.stringify(text) : text;
}

export function formatLogLine(
  level: LogLevel,
  message: string,
  fields: LogFields = {},
  now = new Date(),
): string {
  const pairs = Object.entries(fields)
    .filter((entry): entry is [string, string | number | bigint | boolean | null] => entry[1] !== undefined)
    .map(([key, value]) => ` ${key}=${formatValue(value)}`)
    .join("");
  return `${now.toISOString()} ${level.toUpperCase()} ${message}${pairs}`;
}

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Logger {
  const at =
    (lineLevel: Exclude<LogLevel, "silent">) =>
    (message: string, fields?: LogFields): void => {
      if (RANK[lineLevel] >= RANK[level]) write(formatLogLine(lineLevel, message, fields));
    };
  return { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
}

export const silentLogger: Logger = createLogger("silent");
