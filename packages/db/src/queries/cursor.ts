/**
 * The opaque pagination cursor: base64url of `<slot>.<seq>` of the last row of a page. Decoding is
 * strict (only the exact text this module encodes is accepted) so a tampered or truncated cursor
 * is a clear error instead of a silently different page.
 */
import { ABAS_API__INVALID_CURSOR, AbasError } from "@abas/errors";

export interface CursorPosition {
  readonly slot: number;
  readonly seq: number;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const POSITION = /^(0|[1-9][0-9]{0,15})\.(0|[1-9][0-9]{0,15})$/;
/** Longest cursor: two 16-digit numbers and a dot, in base64url. */
export const MAX_CURSOR_LENGTH = 44;

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`${position.slot}.${position.seq}`, "utf8").toString("base64url");
}

function invalidCursor(reason: string): AbasError {
  return new AbasError(ABAS_API__INVALID_CURSOR, { reason });
}

export function decodeCursor(cursor: string): CursorPosition {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) {
    throw invalidCursor("not base64url text of the expected length");
  }
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = POSITION.exec(text);
  if (!match) throw invalidCursor("it does not decode to a position");
  const position = { slot: Number(match[1]), seq: Number(match[2]) };
  if (!Number.isSafeInteger(position.slot) || !Number.isSafeInteger(position.seq)) {
    throw invalidCursor("its position is out of range");
  }
  // Base64 has several spellings of the same bytes (padding bits); accept only ours.
  if (encodeCursor(position) !== cursor) throw invalidCursor("it is not in canonical form");
  return position;
}
