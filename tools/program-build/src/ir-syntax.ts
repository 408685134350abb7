/** Just enough LLVM IR text handling for line-level rewrites: nesting-aware splitting of operand lists. */

const OPENERS = new Set(["(", "[", "{", "<"]);
const CLOSERS = new Set([")", "]", "}", ">"]);

/** Index of the parenthesis closing the one at `openIndex`, skipping nested brackets and quoted names. */
export function findClosingParenthesis(text: string, openIndex: number): number {
  let depth = 0;
  let quoted = false;
  for (let i = openIndex; i < text.length; i += 1) {
    const char = text[i] ?? "";
    if (char === '"') quoted = !quoted;
    if (quoted) continue;
    if (OPENERS.has(char)) depth += 1;
    else if (CLOSERS.has(char)) {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Splits `a, b(c, d), <2 x i64> e` at the commas that are not nested: ["a", "b(c, d)", "<2 x i64> e"]. */
export function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i] ?? "";
    if (char === '"') quoted = !quoted;
    if (quoted) continue;
    if (OPENERS.has(char)) depth += 1;
    else if (CLOSERS.has(char)) depth -= 1;
    else if (char === "," && depth === 0) {
      parts.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== "") parts.push(last);
  return parts;
}

/** The value of a typed operand with attributes, e.g. `i64 noundef range(i64 0, 9) %n` -> `%n`. */
export function operandValue(typedOperand: string): string {
  const match = /(%"[^"]*"|@"[^"]*"|[^\s()]+)$/.exec(typedOperand.trim());
  return match?.[1] ?? typedOperand.trim();
}

/** The alignment a pointer operand is annotated with (`ptr align 8 %p`), 1 if none. */
export function operandAlignment(typedOperand: string): number {
  const match = /\balign (\d+)\b/.exec(typedOperand);
  return match ? Number(match[1]) : 1;
}

export function isIntegerLiteral(value: string): boolean {
  return /^-?\d+$/.test(value);
}
