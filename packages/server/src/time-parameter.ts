/** `since` and `until`: unix seconds, or an ISO 8601 date (UTC midnight) or date-time with a zone. */
import { ABAS_API__INVALID_PARAMETER, ABAS_API__INVALID_TIME_RANGE, AbasError } from "@abas/errors";

const UNIX_SECONDS = /^[0-9]{1,12}$/;
const ISO_DATE = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** Unix seconds; the route's schema has already checked the shape of `value`. */
export function parseTimeParameter(parameter: string, value: string): number {
  if (UNIX_SECONDS.test(value)) return Number(value);
  const date = value.slice(0, 10);
  const midnight = Date.parse(`${date}T00:00:00Z`);
  // Date.parse rolls 2026-02-31 over to March 3: a date that does not round-trip does not exist.
  const dateExists =
    ISO_DATE.test(date) &&
    Number.isFinite(midnight) &&
    new Date(midnight).toISOString().slice(0, 10) === date;
  const milliseconds = value.length === date.length ? midnight : Date.parse(value);
  if (!dateExists || !Number.isFinite(milliseconds)) {
    throw new AbasError(ABAS_API__INVALID_PARAMETER, {
      parameter,
      reason: "expected unix seconds or an existing ISO 8601 date or date-time, such as 2026-11-21T17:00:00Z",
    });
  }
  return Math.floor(milliseconds / 1000);
}

/** since is inclusive and until exclusive, so since must be strictly earlier. */
export function assertTimeRange(since: number | undefined, until: number | undefined): void {
  if (since !== undefined && until !== undefined && since >= until) {
    throw new AbasError(ABAS_API__INVALID_TIME_RANGE, { since, until });
  }
}
