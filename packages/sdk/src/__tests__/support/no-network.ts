import { createServer } from "node:net";

/** An http URL on 127.0.0.1 whose port was free a moment ago and has nothing listening on it. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

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
