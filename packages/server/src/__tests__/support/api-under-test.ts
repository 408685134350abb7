/**
 * Test support: the REST API on a real socket (port 0) over a real test database, with a valid
 * API key, an ApiClient and a raw GET helper for asserting exact statuses and headers.
 */
import { createApiKey } from "@abas/db";
import type { TestDatabase } from "@abas/db/testing";
import { ApiClient } from "@abas/sdk";

import { buildApp, type AbasApp, type AppOptions } from "../../app.js";
import { startServer, type RunningServer, type StartServerOptions } from "../../server.js";

/** A port nothing listens on: the ledger-unreachable case. */
export const CLOSED_PORT_RPC_URL = "http://127.0.0.1:9";

export interface HttpReply {
  readonly status: number;
  readonly headers: Headers;
  readonly body: unknown;
  readonly text: string;
}

export interface ApiUnderTest {
  readonly database: TestDatabase;
  readonly app: AbasApp;
  readonly server: RunningServer;
  /** `http://127.0.0.1:<port>`, without /api/v1. */
  readonly baseUrl: string;
  /** A valid API key. */
  readonly apiKey: string;
  readonly client: ApiClient;
  /** GET `/api/v1<path>` with the valid key unless `headers` says otherwise. */
  get(path: string, headers?: Record<string, string>): Promise<HttpReply>;
  close(): Promise<void>;
}

export async function startApiUnderTest(
  database: TestDatabase,
  options: Partial<Omit<AppOptions, "db" | "dialect">> = {},
  serverOptions: Partial<StartServerOptions> = {},
): Promise<ApiUnderTest> {
  const app = await buildApp({
    db: database.db,
    dialect: database.dialect,
    rpcUrl: CLOSED_PORT_RPC_URL,
    logLevel: "silent",
    ...options,
  });
  const server = await startServer(app, { port: 0, host: "127.0.0.1", ...serverOptions });
  const { key } = await createApiKey(database.db, { name: "test" });
  return {
    database,
    app,
    server,
    baseUrl: server.url,
    apiKey: key,
    client: new ApiClient({ apiUrl: server.url, apiKey: key }),
    get: (path, headers) =>
      httpGet(`${server.url}/api/v1${path}`, headers ?? { authorization: `Bearer ${key}` }),
    close: () => server.close(),
  };
}

export async function httpGet(url: string, headers: Record<string, string> = {}): Promise<HttpReply> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  let body: unknown = undefined;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the assertions look at `text`.
  }
  return { status: response.status, headers: response.headers, body, text };
}

/** The problem document of a reply, after checking it is one. */
export function problemOf(reply: HttpReply): {
  code: number;
  name: string;
  status: number;
  detail: string;
  type: string;
  title: string;
  requestId: string;
  context?: Record<string, unknown>;
} {
  const contentType = reply.headers.get("content-type") ?? "";
  if (!contentType.startsWith("application/problem+json")) {
    throw new Error(`expected application/problem+json, got ${contentType}: ${reply.text}`);
  }
  return reply.body as ReturnType<typeof problemOf>;
}
