/**
 * URLs as logged: a client that puts its API key in the URL (where it is never accepted) must not
 * get it written to the log. Values of query parameters named like credentials, and anything
 * shaped like an ABAS API key anywhere in the URL, become "[redacted]".
 */
const REDACTED = "[redacted]";
/** `abas_` + base58; shorter runs than a real key's are caught too (a truncated paste is still secret). */
const API_KEY_SHAPE = /abas_[1-9A-HJ-NP-Za-km-z]{8,}/g;
const CREDENTIAL_NAME = /key|token|secret|auth|pass|session|signature/i;

export function redactUrl(url: string): string {
  const queryAt = url.indexOf("?");
  const path = (queryAt < 0 ? url : url.slice(0, queryAt)).replace(API_KEY_SHAPE, REDACTED);
  if (queryAt < 0) return path;
  const query = url
    .slice(queryAt + 1)
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const name = equals < 0 ? pair : pair.slice(0, equals);
      if (equals >= 0 && CREDENTIAL_NAME.test(name)) return `${name}=${REDACTED}`;
      return pair.replace(API_KEY_SHAPE, REDACTED);
    })
    .join("&");
  return `${path}?${query}`;
}
