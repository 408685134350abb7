/**
 * The message of an error's innermost cause: what a failed request says under its wrappers
 * (kit's and fetch's "fetch failed" around "connect ECONNREFUSED 127.0.0.1:8899").
 */
export function innermostMessage(error: unknown): string {
  let current = error;
  for (let depth = 0; current instanceof Error && current.cause instanceof Error && depth < 8; depth++)
    current = current.cause;
  return current instanceof Error ? current.message : String(current);
}
