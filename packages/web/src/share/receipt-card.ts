/**
 * The share link's icon: an 800 × 800 PNG receipt card (blink clients show the icon square), drawn
 * as SVG and rasterised by resvg with the DejaVu fonts, so it looks the same on every server.
 */
import { existsSync } from "node:fs";

import { renderAsync } from "@resvg/resvg-js";

import { formatUtc } from "../html/format.js";
import type { ReceiptFacts, ShareStatus } from "./receipt-facts.js";

export const CARD_SIZE = 800;

const FONT_DIRECTORY = "/usr/share/fonts/truetype/dejavu";
const FONT_FILES = ["DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf"].map(
  (name) => `${FONT_DIRECTORY}/${name}`,
);
const HAS_DEJAVU = FONT_FILES.every((file) => existsSync(file));

const SANS = "DejaVu Sans";
const MONO = "DejaVu Sans Mono";

const STATUS_STYLE: Record<
  ShareStatus,
  { color: string; soft: string; text: string; mark: "check" | "cross" | "question" }
> = {
  verified: { color: "#0f7a3a", soft: "#e5f5eb", text: "Verified on the ledger", mark: "check" },
  failed: { color: "#b42318", soft: "#fdecea", text: "Not verified", mark: "cross" },
  unavailable: { color: "#9a5b00", soft: "#fff4df", text: "Ledger unreachable", mark: "question" },
  "not-found": { color: "#5d6572", soft: "#eef0f3", text: "Not found", mark: "question" },
};

const MARKS = {
  check:
    '<path d="M-12 1 l8 8 l16 -17" fill="none" stroke="#fff" stroke-width="6" stroke-linecap="round" stroke-linejoin="round"/>',
  cross: '<path d="M-10 -10 L10 10 M10 -10 L-10 10" stroke="#fff" stroke-width="6" stroke-linecap="round"/>',
  question: `<text x="0" y="12" text-anchor="middle" font-family="${SANS}" font-weight="bold" font-size="34" fill="#fff">?</text>`,
};

function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Splits a long value into lines of at most `width` characters (hashes and keys have no spaces). */
function wrap(value: string, width: number, maxLines: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < value.length && lines.length < maxLines; i += width)
    lines.push(value.slice(i, i + width));
  if (lines.length * width < value.length) lines[lines.length - 1] = `${lines.at(-1)!.slice(0, width - 1)}…`;
  return lines;
}

export function buildReceiptCardSvg(facts: ReceiptFacts, checkedAt: number, host: string): string {
  const style = STATUS_STYLE[facts.status];
  const parts: string[] = [];
  let y = 250;
  for (const row of facts.rows) {
    parts.push(
      `<text x="84" y="${y}" font-family="${SANS}" font-size="19" fill="#5d6572">${escapeXml(row.label)}</text>`,
    );
    y += 31;
    const lines = row.mono ? wrap(row.value, 44, 2) : wrap(row.value, 46, 2);
    for (const line of lines) {
      parts.push(
        `<text x="84" y="${y}" font-family="${row.mono ? MONO : SANS}" font-size="${row.mono ? 23 : 24}" fill="#16181d">${escapeXml(line)}</text>`,
      );
      y += 30;
    }
    y += 14;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_SIZE}" height="${CARD_SIZE}" viewBox="0 0 ${CARD_SIZE} ${CARD_SIZE}">
  <defs><clipPath id="card"><rect x="40" y="40" width="720" height="720" rx="28"/></clipPath></defs>
  <rect width="800" height="800" fill="#0f1720"/>
  <g clip-path="url(#card)">
    <rect x="40" y="40" width="720" height="720" fill="#ffffff"/>
    <rect x="40" y="40" width="720" height="14" fill="${style.color}"/>
  </g>
  <text x="84" y="112" font-family="${SANS}" font-weight="bold" font-size="30" fill="#16181d">ABAS</text>
  <text x="190" y="112" font-family="${SANS}" font-size="22" fill="#5d6572">Agent action receipt</text>
  <text x="716" y="112" text-anchor="end" font-family="${SANS}" font-size="17" fill="#8a919c">${escapeXml(host)}</text>
  <rect x="84" y="138" width="632" height="72" rx="16" fill="${style.soft}"/>
  <g transform="translate(124 174)"><circle r="24" fill="${style.color}"/>${MARKS[style.mark]}</g>
  <text x="168" y="168" font-family="${SANS}" font-weight="bold" font-size="27" fill="${style.color}">${escapeXml(style.text)}</text>
  <text x="168" y="196" font-family="${SANS}" font-size="19" fill="#3f4652">${escapeXml(facts.heading)}</text>
  ${parts.join("\n  ")}
  <line x1="84" y1="690" x2="716" y2="690" stroke="#e2e5ea" stroke-width="2"/>
  <text x="84" y="724" font-family="${SANS}" font-size="17" fill="#8a919c">Checked against the Solana ledger at ${escapeXml(formatUtc(Math.floor(checkedAt / 1000)))}</text>
</svg>`;
}

/** The card as PNG bytes, drawn on libuv's thread pool: the server's thread goes on meanwhile. */
export async function renderReceiptCard(
  facts: ReceiptFacts,
  checkedAt: number,
  host: string,
): Promise<Buffer> {
  const svg = buildReceiptCardSvg(facts, checkedAt, host);
  const image = await renderAsync(svg, {
    fitTo: { mode: "width", value: CARD_SIZE },
    font: HAS_DEJAVU
      ? { fontFiles: FONT_FILES, loadSystemFonts: false, defaultFontFamily: SANS }
      : { loadSystemFonts: true, defaultFontFamily: SANS },
  });
  return image.asPng();
}
