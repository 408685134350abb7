/**
 * What makes a JSON text say more than the value `JSON.parse` gives: a key an object repeats (the
 * parse keeps the last one only) or a number with more digits than a double holds (the parse
 * rounds it). Such a text and another one that says something else have the same canonical JSON,
 * and so the same action hash: `{"to":"alice","to":"mallory"}` is `{"to":"mallory"}`.
 */

/** Sign, significant digits (no leading or trailing zeros) and exponent: equal for equal values. */
function decimalValue(literal: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal);
  if (match === null) return literal;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  const digits = `${whole}${fraction}`;
  // (index scans: a regular expression for trailing zeros takes quadratic time on 1.000…0001)
  let leading = 0;
  while (leading < digits.length && digits[leading] === "0") leading += 1;
  let end = digits.length;
  while (end > leading && digits[end - 1] === "0") end -= 1;
  const significant = digits.slice(leading, end);
  if (significant === "") return "0";
  // An exponent of more digits than any double's (its decimal exponent has at most 3) is no
  // double's: it is not read as a number (BigInt takes superlinear time on millions of digits).
  const exponentDigits = exponent.replace(/^[+-]?0*/, "");
  if (exponentDigits.length > MAX_EXPONENT_DIGITS) return `${sign}0.${significant}e${exponent}`;
  const exponentValue = BigInt(`${exponent.startsWith("-") ? "-" : ""}${exponentDigits || "0"}`);
  // The value is 0.<significant> × 10^power.
  const power = exponentValue + BigInt(whole!.length - leading);
  return `${sign}0.${significant}e${power}`;
}

/** Exponent digits read as a number at most: far past the 3 of any double, and cheap to read. */
const MAX_EXPONENT_DIGITS = 20;

/** A number as the reasons name it: a long one by its ends and its length. */
function shownNumber(literal: string): string {
  return literal.length <= 80
    ? literal
    : `${literal.slice(0, 40)}…${literal.slice(-16)} (${literal.length} characters)`;
}

/** Why `literal`, a JSON number, is not the double JSON.parse makes of it; undefined when it is. */
function numberAmbiguity(literal: string): string | undefined {
  const value = Number(literal);
  if (!Number.isFinite(value)) return `the number ${shownNumber(literal)} is beyond what JSON.parse keeps`;
  // Most numbers are written as JavaScript writes their value: the same text, the same value.
  if (String(value) === literal) return undefined;
  if (decimalValue(literal) !== decimalValue(String(value))) {
    return `the number ${shownNumber(literal)} has more digits than JSON.parse keeps (it reads ${String(value)})`;
  }
  return undefined;
}

/** A JSON number where `lastIndex` says (sticky: no copy of the rest of the text per number). */
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
/** A run of a string's characters up to its closing quote or an escape (sticky). */
const UNESCAPED = /[^"\\]*/y;

/** Where the string that opens at `at` closes: the index of its closing quote. */
function stringEnd(text: string, at: number): number {
  let end = at + 1;
  for (;;) {
    UNESCAPED.lastIndex = end;
    UNESCAPED.exec(text);
    end = UNESCAPED.lastIndex;
    if (text[end] !== "\\") return end;
    end += 2;
  }
}

type Frame = { keys: Set<string> | undefined; expectingKey: boolean };

/**
 * The first ambiguity of `text`, which must be JSON (`JSON.parse` accepts it), in words; undefined
 * when it has none.
 */
export function jsonAmbiguity(text: string): string | undefined {
  const frames: Frame[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    const frame = frames.at(-1);
    if (char === '"') {
      const end = stringEnd(text, at);
      if (frame?.keys !== undefined && frame.expectingKey) {
        const raw = text.slice(at + 1, end);
        const key = raw.includes("\\") ? (JSON.parse(text.slice(at, end + 1)) as string) : raw;
        if (frame.keys.has(key)) return `an object repeats the key ${JSON.stringify(key)}`;
        frame.keys.add(key);
        frame.expectingKey = false;
      }
      at = end + 1;
    } else if (char === "-" || (char >= "0" && char <= "9")) {
      NUMBER.lastIndex = at;
      const literal = NUMBER.exec(text)![0];
      const ambiguity = numberAmbiguity(literal);
      if (ambiguity !== undefined) return ambiguity;
      at += literal.length;
    } else {
      if (char === "{") frames.push({ keys: new Set(), expectingKey: true });
      else if (char === "[") frames.push({ keys: undefined, expectingKey: false });
      else if (char === "}" || char === "]") frames.pop();
      else if (char === "," && frame?.keys !== undefined) frame.expectingKey = true;
      at += 1;
    }
  }
  return undefined;
}
