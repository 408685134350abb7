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

/**
 * The values of one line: a batch's elements (`batch`), or the one value; undefined when the line is
 * not JSON.
 */
export function parseElements(line: Buffer): { elements: unknown[]; batch: boolean } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line.toString("utf8"));
  } catch {
    return undefined; // not JSON (NaN, say), or longer than a JavaScript string can be
  }
  return Array.isArray(value) ? { elements: value, batch: true } : { elements: [value], batch: false };
}

/** The JSON-RPC messages of one line: one, a batch's elements, or none when it is not JSON. */
export function parseMessages(line: Buffer): Record<string, unknown>[] {
  return (parseElements(line)?.elements ?? []).filter(
    (message): message is Record<string, unknown> => typeof message === "object" && message !== null,
  );
}

const [OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT, QUOTE, BACKSLASH, COMMA] = [
  0x5b, 0x5d, 0x7b, 0x7d, 0x22, 0x5c, 0x2c,
];
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Where each element of a JSON array line starts and ends in its bytes (whitespace around it
 * excluded), so that one element can be replaced and the others kept byte for byte; undefined
 * when the line is not an array. The line must be valid JSON.
 */
export function arrayElementRanges(line: Buffer): Array<[start: number, end: number]> | undefined {
  let at = 0;
  while (at < line.length && WHITESPACE.has(line[at]!)) at++;
  if (line[at] !== OPEN_ARRAY) return undefined;
  const ranges: Array<[number, number]> = [];
  let depth = 0;
  let inString = false;
  let start: number | undefined;
  let end = 0;
  for (; at < line.length; at++) {
    const byte = line[at]!;
    if (inString) {
      if (byte === BACKSLASH) at++;
      else if (byte === QUOTE) inString = false;
      end = at + 1;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth++;
      if (depth === 1) continue;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
      if (depth === 0) {
        if (start !== undefined) ranges.push([start, end]);
        return ranges;
      }
    } else if (byte === COMMA && depth === 1) {
      ranges.push([start!, end]);
      start = undefined;
      continue;
    }
    if (WHITESPACE.has(byte)) continue;
    start ??= at;
    end = at + 1;
  }
  return ranges;
}

/**
 * The exact text of element `index` of a line: the element of a batch (an array line), or the whole
 * message without the whitespace around it. The line must be valid JSON.
 */
export function elementText(line: Buffer, index: number): string {
  const range = arrayElementRanges(line)?.[index];
  return (range === undefined ? line : line.subarray(range[0], range[1])).toString("utf8").trim();
}

/**
 * The line without the elements at `indexes`: a batch keeps its other elements byte for byte (in a
 * new array); undefined when nothing is left (a single message, or every element of a batch).
 */
export function withoutElements(line: Buffer, indexes: ReadonlySet<number>): Buffer | undefined {
  const ranges = arrayElementRanges(line);
  if (ranges === undefined) return indexes.has(0) ? undefined : line;
  const kept = ranges.filter((_, index) => !indexes.has(index));
  if (kept.length === 0) return undefined;
  const pieces: Buffer[] = [Buffer.from("[")];
  kept.forEach(([start, end], at) =>
    pieces.push(...(at === 0 ? [] : [Buffer.from(",")]), line.subarray(start, end)),
  );
  pieces.push(Buffer.from("]\n"));
  return Buffer.concat(pieces);
}
