/** How values read on the pages: UTC times, shortened keys, counts and shares. */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const pad = (value: number): string => String(value).padStart(2, "0");

/** `2026-11-21 18:14:35 UTC` from unix seconds. */
export function formatUtc(unixSeconds: number): string {
  const date = new Date(unixSeconds * 1000);
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} UTC`
  );
}

/** `21 Nov 2026, 18:14 UTC`: shorter, for tables. */
export function formatUtcShort(unixSeconds: number): string {
  const date = new Date(unixSeconds * 1000);
  return (
    `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}, ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
  );
}

/** ISO 8601, for `<time datetime>`. */
export function isoTime(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString();
}

/** `7xKXtg…sgAsU`: enough to recognise a key, short enough for a table. */
export function shortKey(key: string, keep = 6): string {
  return key.length <= keep * 2 + 1 ? key : `${key.slice(0, keep)}…${key.slice(-keep)}`;
}

export function formatCount(value: number): string {
  return value.toLocaleString("en-US");
}

export function formatPercent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
