/** Plain-text tables for the terminal: columns padded to their widest cell, two spaces apart. */

/**
 * Characters a cell never writes as they are, because the terminal would act on them rather than
 * show them: C0 and C1 controls and DEL (a newline in a tool's name, an escape sequence), the line
 * and paragraph separators, and the invisible formatting characters that reorder or hide text
 * (bidirectional overrides and isolates, zero-width characters, the byte-order mark), with which a
 * name could pass for another.
 */
// eslint-disable-next-line no-control-regex
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

/** A cell as one line of visible characters: each of those written as a JSON escape instead. */
const oneLine = (cell: string): string =>
  cell.replace(UNSHOWN, (character) => {
    const escaped = JSON.stringify(character).slice(1, -1);
    return escaped !== character ? escaped : `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });

/** `cells[0]` is the header row. */
export function table(cells: readonly string[][]): string {
  const rows = cells.map((row) => row.map(oneLine));
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}
