/**
 * Replaces `fetch` (which kit's RPC transport uses) with one that records and fails every request,
 * so a test can assert that an operation made none.
 */
export function recordFetches(): { requests: string[]; restore: () => void } {
  const original = globalThis.fetch;
  const requests: string[] = [];
  globalThis.fetch = (async (input: unknown, init?: { body?: unknown }) => {
    requests.push(typeof init?.body === "string" ? init.body : String(input));
    throw new TypeError("fetch failed: no network in this test");
  }) as typeof fetch;
  return { requests, restore: () => void (globalThis.fetch = original) };
}
