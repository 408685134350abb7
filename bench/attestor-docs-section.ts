/**
 * The attestor's section of docs/performance.md, written by `npm run bench:attestor` between these
 * markers and carried over when `npm run bench` renders the rest of the page.
 */
export const ATTESTOR_DOCS_START = "<!-- bench:attestor:start -->";
export const ATTESTOR_DOCS_END = "<!-- bench:attestor:end -->";

/** The marked section of `docs`, markers included, or "" when it has none. */
export function attestorDocsSection(docs: string): string {
  const start = docs.indexOf(ATTESTOR_DOCS_START);
  const end = docs.indexOf(ATTESTOR_DOCS_END);
  return start === -1 || end === -1 ? "" : docs.slice(start, end + ATTESTOR_DOCS_END.length);
}

/** `docs` with its marked section replaced by `section`, or with `section` appended. */
export function withAttestorDocsSection(docs: string, section: string): string {
  const current = attestorDocsSection(docs);
  return current === "" ? `${docs.trimEnd()}\n\n${section}\n` : docs.replace(current, () => section);
}
