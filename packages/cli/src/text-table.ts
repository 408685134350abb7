/** Plain-text tables for the terminal: columns padded to their widest cell, two spaces apart. */

/** A cell as one line: control characters (a newline in a tool's name) written as JSON escapes them. */
const oneLine = (cell: string): string =>
  Array.from(cell, (character) =>
    character < " " ? JSON.stringify(character).slice(1, -1) : character,
  ).join("");

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
