/**
 * The MCP stdio transport frames each JSON-RPC message as one line. This cuts a byte stream into
 * those lines, each with its own newline, exactly as received: the proxy forwards these bytes,
 * never a re-serialization.
 */
export class MessageLines {
  #pending: Buffer[] = [];

  /** The complete lines in `chunk` (after what was held from earlier chunks); holds the rest. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const piece = chunk.subarray(start, end + 1);
      lines.push(this.#pending.length === 0 ? piece : Buffer.concat([...this.#pending.splice(0), piece]));
      start = end + 1;
    }
    if (start < chunk.length) this.#pending.push(chunk.subarray(start));
    return lines;
  }

  /** What is left without a newline when the stream ends (forwarded as it is). */
  rest(): Buffer | undefined {
    return this.#pending.length === 0 ? undefined : Buffer.concat(this.#pending.splice(0));
  }
}

/** The JSON-RPC messages of one line: one, a batch's elements, or none when it is not JSON. */
export function parseMessages(line: Buffer): Record<string, unknown>[] {
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return [];
  }
  const messages = Array.isArray(value) ? value : [value];
  return messages.filter(
    (message): message is Record<string, unknown> => typeof message === "object" && message !== null,
  );
}
