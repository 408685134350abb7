/**
 * The sections of docs/performance.md that bench scripts write between markers: `npm run bench`
 * the first six, `npm run bench:attestor` and `npm run bench:mcp-proxy` their own. Everything
 * outside the markers (the history of earlier runs, written by hand) is left as it is.
 */
export const DOCS_SECTIONS = [
  "run",
  "program-cu",
  "hash",
  "api",
  "indexer",
  "ledger",
  "attestor",
  "mcp-proxy",
] as const;
export type DocsSectionName = (typeof DOCS_SECTIONS)[number];

export const docsSectionStart = (name: DocsSectionName): string => `<!-- bench:${name}:start -->`;
export const docsSectionEnd = (name: DocsSectionName): string => `<!-- bench:${name}:end -->`;

/** The marked section of `docs`, markers included, or "" when it has none. */
export function docsSection(docs: string, name: DocsSectionName): string {
  const start = docs.indexOf(docsSectionStart(name));
  const end = docs.indexOf(docsSectionEnd(name));
  return start === -1 || end === -1 ? "" : docs.slice(start, end + docsSectionEnd(name).length);
}

/** `docs` with its marked section replaced by `section`, or with `section` appended. */
export function withDocsSection(docs: string, name: DocsSectionName, section: string): string {
  const current = docsSection(docs, name);
  return current === "" ? `${docs.trimEnd()}\n\n${section}\n` : docs.replace(current, () => section);
}
