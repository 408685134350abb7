/** The URLs of a receipt's share link: the Action, its blink on dial.to, and its card image. */
export const ACTION_PATH = "/api/actions/verify";
export const CARD_PATH = "/api/actions/verify/card.png";

/** `key` is `tx` for a transaction signature, `id` for an attestation id (a batch item's, say). */
export function actionUrl(origin: string, key: "tx" | "id", value: string): string {
  return `${origin}${ACTION_PATH}?${key}=${encodeURIComponent(value)}`;
}

/** A blink: dial.to renders any Action URL given as `solana-action:<url>`. */
export function blinkUrl(action: string): string {
  return `https://dial.to/?action=${encodeURIComponent(`solana-action:${action}`)}`;
}

/** `key` is `tx` for a transaction signature, `id` for an attestation id. */
export function cardUrl(origin: string, key: "tx" | "id", value: string): string {
  return `${origin}${CARD_PATH}?${key}=${encodeURIComponent(value)}`;
}
