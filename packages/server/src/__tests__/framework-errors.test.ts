/**
 * What the HTTP layer refuses before any route runs (a malformed percent escape, a path parameter
 * over the router's limit, headers over Node's limit, a request line that is not HTTP) is answered
 * like every other error: an application/problem+json document with code 4003, the framework's
 * status, and nothing of the request echoed back.
 */
import assert from "node:assert/strict";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";

import { ABAS_API__MALFORMED_REQUEST } from "@abas/errors";
import { openTestDatabase, type TestDatabase } from "@abas/db/testing";

import { httpGet, problemOf, startApiUnderTest, type ApiUnderTest } from "./support/api-under-test.js";

interface RawReply {
  readonly status: number;
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** Sends bytes on a fresh socket and reads the answer until the server closes or it is complete. */
async function sendRaw(baseUrl: string, request: string): Promise<RawReply> {
  const url = new URL(baseUrl);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = "";
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString("utf8");
      const headerEnd = received.indexOf("\r\n\r\n");
      const length = /content-length: *(\d+)/i.exec(received)?.[1];
      if (headerEnd >= 0 && length !== undefined && received.length >= headerEnd + 4 + Number(length)) {
        socket.destroy();
        resolve(received);
      }
    });
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
    socket.write(request);
  });
  const [head = "", body = ""] = text.split("\r\n\r\n");
  const [statusLine = "", ...headerLines] = head.split("\r\n");
  const headers = new Map(
    headerLines.map((line) => [
      line.slice(0, line.indexOf(":")).toLowerCase(),
      line.slice(line.indexOf(":") + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(" ")[1]), headers, body };
}

function assertProblem(reply: RawReply, status: number): Record<string, unknown> {
  assert.equal(reply.status, status, reply.body);
  assert.match(reply.headers.get("content-type") ?? "", /^application\/problem\+json/);
  const problem = JSON.parse(reply.body) as Record<string, unknown>;
  assert.equal(problem.code, ABAS_API__MALFORMED_REQUEST);
  assert.equal(problem.name, "ABAS_API__MALFORMED_REQUEST");
  assert.equal(problem.status, status);
  assert.equal(typeof problem.requestId, "string");
  return problem;
}

describe("the framework's own refusals", () => {
  let database: TestDatabase;
  let api: ApiUnderTest;
  before(async () => {
    database = await openTestDatabase("sqlite");
    api = await startApiUnderTest(database);
  });
  after(async () => {
    await api?.close();
    await database?.dispose();
  });

  it("answers a malformed percent escape with 400 and code 4003, without echoing the path", async () => {
    const reply = await httpGet(`${api.baseUrl}/api/v1/agents/%zzsecret-looking-value`);
    assert.equal(reply.status, 400);
    const problem = problemOf(reply);
    assert.equal(problem.code, ABAS_API__MALFORMED_REQUEST);
    assert.equal(problem.detail, "The request is malformed: the URL holds a malformed percent-encoding");
    assert.doesNotMatch(reply.text, /secret-looking-value|%zz/);
  });

  it("answers a path parameter over the limit with 414 and code 4003, without echoing the URL", async () => {
    const long = "A".repeat(150);
    const reply = await httpGet(`${api.baseUrl}/api/v1/agents/${long}`);
    assert.equal(reply.status, 414);
    const problem = problemOf(reply);
    assert.equal(problem.code, ABAS_API__MALFORMED_REQUEST);
    assert.equal(problem.detail, "The request is malformed: a path segment is longer than 100 characters");
    assert.ok(!reply.text.includes(long.slice(0, 40)), reply.text);
  });

  it("answers headers over the size limit with 431 and code 4003", async () => {
    const reply = await sendRaw(
      api.baseUrl,
      `GET /api/v1/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${"p".repeat(20_000)}\r\n\r\n`,
    );
    const problem = assertProblem(reply, 431);
    assert.equal(problem.detail, "The request is malformed: the request headers are larger than 16 KiB");
    assert.equal(reply.headers.get("connection"), "close");
  });

  it("answers a request line that is not HTTP with 400 and code 4003", async () => {
    const reply = await sendRaw(api.baseUrl, "THIS IS NOT HTTP\r\n\r\n");
    const problem = assertProblem(reply, 400);
    assert.equal(problem.detail, "The request is malformed: the request is not valid HTTP/1.1");
  });
});
