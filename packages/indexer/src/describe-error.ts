/**
 * A one-line description of an error and its causes, for LastError and the logs: RPC client
 * errors wrap the useful part ("connect ECONNREFUSED 127.0.0.1:8899") a cause or two deep.
 */
const MAX_CAUSES = 4;
const MAX_LENGTH = 500;

export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth <= MAX_CAUSES && current !== undefined && current !== null; depth++) {
    const message = current instanceof Error ? current.message : String(current);
    if (message !== "" && !parts.some((part) => part.includes(message))) parts.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  const text = parts.join(": ") || "unknown error";
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text;
}
