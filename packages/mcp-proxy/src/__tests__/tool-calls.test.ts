/** Which lines make a recorded tool call: the pairing of the host's tools/call requests with the server's responses. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { canonicalize } from "@abas/sdk";

import { arrayElementRanges, MessageLines } from "../message-lines.js";
import { MAX_READ_LINE_BYTES } from "../host-reading.js";
import { MAX_PENDING_CALLS, ToolCallTracker } from "../tool-calls.js";

const line = (message: unknown) => Buffer.from(`${JSON.stringify(message)}\n`);
const call = (id: unknown, name: string) =>
  line({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: { q: name } } });

describe("ToolCallTracker", () => {
  it("pairs a response with its request by id, telling the string id 1 from the number 1", () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(call(1, "by-number"));
    tracker.fromHost(call("1", "by-string"));
    const [first] = tracker.fromServer(line({ jsonrpc: "2.0", id: "1", result: { content: [] } }));
    assert.equal(first?.action.tool, "by-string");
    const [second] = tracker.fromServer(
      line({ jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } }),
    );
    assert.equal(second?.action.tool, "by-number");
    assert.deepEqual(second?.action.error, { code: -32602, message: "bad" });
    assert.equal(second?.action.result, undefined);
    assert.equal(tracker.pendingCount, 0);
  });

  it('pairs a response whose id spells the call\'s other way (1 answered as "1"), as hosts read it, and says so', () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    tracker.fromHost(call(1, "number-asked"));
    tracker.fromHost(call("7", "text-asked"));
    const [first] = tracker.fromServer(line({ jsonrpc: "2.0", id: "1", result: { content: [] } }));
    assert.deepEqual([first?.action.tool, first?.action.callId], ["number-asked", 1]);
    const [second] = tracker.fromServer(line({ jsonrpc: "2.0", id: 7, result: { content: [] } }));
    assert.deepEqual([second?.action.tool, second?.action.callId], ["text-asked", "7"]);
    // The client reads the id "" as Number("") = 0
    tracker.fromHost(call(0, "zero-asked"));
    const [third] = tracker.fromServer(line({ jsonrpc: "2.0", id: "", result: { content: [] } }));
    assert.deepEqual([third?.action.tool, third?.action.callId], ["zero-asked", 0]);
    assert.equal(tracker.pendingCount, 0);
    assert.deepEqual(warnings, [
      'the server answered the tools/call with id 1 under the id "1": recorded as its answer, as hosts read it',
      'the server answered the tools/call with id "7" under the id 7: recorded as its answer, as hosts read it',
      'the server answered the tools/call with id 0 under the id "": recorded as its answer, as hosts read it',
    ]);
  });

  it("never pairs through the other spelling a response that answers another request of the host", () => {
    const tracker = new ToolCallTracker();
    // Given a tools/call 1 and a resources/read "1" in flight
    tracker.fromHost(call(1, "transfer"));
    tracker.fromHost(line({ jsonrpc: "2.0", id: "1", method: "resources/read", params: { uri: "x" } }));
    // When the server answers the resources/read first, then the call
    const first = tracker.fromServer(line({ jsonrpc: "2.0", id: "1", result: { contents: [] } }));
    const second = tracker.fromServer(
      line({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "sent" }] } }),
    );
    // Then only the call's own response is recorded as its result
    assert.deepEqual(first, []);
    assert.deepEqual(second[0]?.action.result, { content: [{ type: "text", text: "sent" }] });
  });

  it("marks a response the official client drops as not recordable, saying why", () => {
    const tracker = new ToolCallTracker();
    const responses: Record<string, unknown>[] = [
      { jsonrpc: "1.0", id: 1, result: { content: [] } },
      { jsonrpc: "2.0", id: 2, result: { content: [] }, note: "hi" },
      { jsonrpc: "2.0", id: 3, result: { content: [] } },
      { jsonrpc: "2.0", id: 4, result: {}, error: { code: 1, message: "x" } },
      { jsonrpc: "2.0", id: 5, result: "transferred" },
      { jsonrpc: "2.0", id: 6, error: { code: 1.5, message: "refused" } },
      { jsonrpc: "2.0", id: 7, result: { content: [] }, error: null },
      { jsonrpc: "2.0", id: 8, result: { _meta: { progressToken: 0.5 } } },
      { jsonrpc: "2.0", id: 9 },
    ];
    responses.forEach((_, index) => tracker.fromHost(call(index + 1, `tool ${index + 1}`)));
    const done = responses.flatMap((response) => tracker.fromServer(line(response)));
    assert.deepEqual(
      done.map((each) => each.unrecordable),
      [
        'the official MCP client drops it: its "jsonrpc" is "1.0", not "2.0"',
        'the official MCP client drops it: it has a member "note" beside jsonrpc, id, result and error',
        undefined,
        "the official MCP client drops it: it has both a result and an error",
        "the official MCP client drops it: its result is not what the MCP client reads (Invalid input: expected object, received string)",
        "the official MCP client drops it: its error.code is not what the MCP client reads (Invalid input: expected int, received number)",
        "the official MCP client drops it: it has both a result and an error",
        "the official MCP client drops it: its result._meta.progressToken is not what the MCP client reads (Invalid input)",
        "the official MCP client drops it: it has neither a result nor an error",
      ],
    );
    assert.equal(tracker.pendingCount, 0);
  });

  it("refuses a batch that answers a call the host sent alone, and takes one that answers a batched call", () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(call(1, "alone"));
    tracker.fromHost(Buffer.from(`[${call(2, "batched").toString().trim()}]\n`));
    const [alone] = tracker.fromServer(Buffer.from('[{"jsonrpc":"2.0","id":1,"result":{}}]\n'));
    const [batched] = tracker.fromServer(Buffer.from('[{"jsonrpc":"2.0","id":2,"result":{}}]\n'));
    assert.equal(
      alone?.unrecordable,
      "a batch answers a call the host sent alone (the official MCP client reads no batch)",
    );
    assert.deepEqual([batched?.action.tool, batched?.unrecordable], ["batched", undefined]);
  });

  it(`refuses a response line longer than the official client is sure to read (${MAX_READ_LINE_BYTES} bytes)`, () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(call(1, "fits"));
    tracker.fromHost(call(2, "too long"));
    const text = (id: number, length: number) => {
      const bare = line({ jsonrpc: "2.0", id, result: { text: "" } }).length;
      return line({ jsonrpc: "2.0", id, result: { text: "x".repeat(length - bare) } });
    };
    const [fits] = tracker.fromServer(text(1, MAX_READ_LINE_BYTES));
    const [tooLong] = tracker.fromServer(text(2, MAX_READ_LINE_BYTES + 1));
    assert.equal(fits?.unrecordable, undefined);
    assert.equal(
      tooLong?.unrecordable,
      `the line is ${MAX_READ_LINE_BYTES + 1} bytes, more than the official MCP client is sure to read (${MAX_READ_LINE_BYTES})`,
    );
  });

  it("refuses every later answer to a call whose answer it refused, and forwards a second answer to a recorded one, saying so", () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    tracker.fromHost(call(1, "transfer"));
    tracker.fromHost(call(2, "read"));
    // A decoy the official client drops, then the answer it would act on
    const [decoy] = tracker.fromServer(line({ jsonrpc: "2.0", id: 1, result: "decoy" }));
    const [real] = tracker.fromServer(line({ jsonrpc: "2.0", id: "1", result: { content: [] } }));
    assert.match(decoy?.unrecordable ?? "", /drops it/);
    assert.deepEqual(
      [real?.action.tool, real?.action.callId, real?.unrecordable],
      ["transfer", 1, "the server answered the call again after an answer that was not recorded"],
    );
    // A recorded answer, then another: the host took the first
    assert.equal(tracker.fromServer(line({ jsonrpc: "2.0", id: 2, result: {} }))[0]?.unrecordable, undefined);
    assert.deepEqual(tracker.fromServer(line({ jsonrpc: "2.0", id: 2, result: { again: true } })), []);
    assert.deepEqual(tracker.fromServer(line({ jsonrpc: "2.0", id: 3, result: {} })), []);
    assert.deepEqual(warnings, [
      "tool read (id 2): the server answered the call again; forwarded as it is, not recorded (the host took the first answer)",
      "the server sent a response to the id 3, which no request of the host awaits: forwarded as it is",
    ]);
  });

  it("leaves the answers to the host's other requests alone, under an id a refused call had too", () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    // A call whose answer is refused, then a tools/list under its id, and an initialize
    tracker.fromHost(call(1, "transfer"));
    assert.match(
      tracker.fromServer(line({ jsonrpc: "2.0", id: 1, result: "decoy" }))[0]?.unrecordable ?? "",
      /drops it/,
    );
    tracker.fromHost(line({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    tracker.fromHost(line({ jsonrpc: "2.0", id: 0, method: "initialize", params: {} }));
    // Their answers complete no call, and nothing is said of them
    assert.deepEqual(tracker.fromServer(line({ jsonrpc: "2.0", id: 1, result: { tools: [] } })), []);
    assert.deepEqual(tracker.fromServer(line({ jsonrpc: "2.0", id: 0, result: {} })), []);
    assert.deepEqual(warnings, []);
  });

  it("does not note a call its refusal gives a reason for, and returns it with its place in the line", () => {
    const tracker = new ToolCallTracker();
    const batch = Buffer.from(
      `[${line({ jsonrpc: "2.0", id: 1, method: "tools/list" }).toString().trim()},${call(2, "pay").toString().trim()}]\n`,
    );
    const noted = tracker.fromHost(batch, new Date(), () => "the queue is full");
    assert.deepEqual(noted, {
      refused: [{ index: 1, id: 2, tool: "pay", reason: "the queue is full" }],
      batch: true,
    });
    assert.equal(tracker.pendingCount, 0);
    assert.equal(tracker.fromHost(Buffer.from("not json\n")), undefined);
  });

  it("records what canonical JSON keeps: numbers as 64-bit floats, text as Unicode, ids as JavaScript reads them", () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(
      Buffer.from(
        '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"sum","arguments":{"n":12345678901234567891}}}\n',
      ),
    );
    const [done] = tracker.fromServer(
      Buffer.concat([
        Buffer.from('{"jsonrpc":"2.0","id":9007199254740993,"result":{"text":"a'),
        Buffer.from([0xff]),
        Buffer.from('b"}}\n'),
      ]),
    );
    assert.equal(canonicalize(done?.action.arguments), '{"n":12345678901234567000}');
    assert.deepEqual(done?.action.result, { text: "a\ufffdb" });
    assert.equal(done?.action.callId, 9007199254740992);
    // An id past 2^53 is not one the official client reads: its call is recorded under no answer
    assert.equal(
      done?.unrecordable,
      "the official MCP client drops it: its id is not what the MCP client reads (Too big: expected int to be <=9007199254740991)",
    );
  });

  it("keeps the exact text of a message that says more than JSON.parse reads, and only of that message", () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    // A batch: one call repeats a key, the other does not
    const repeated =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay","arguments":{"to":"a","to":"b"}}}';
    tracker.fromHost(
      Buffer.from(
        `[ ${repeated} , ${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "plain", arguments: {} } })}]\n`,
      ),
    );
    const rounded = '{"jsonrpc":"2.0","id":2,"result":{"n":9007199254740993}}';
    const [first, second] = tracker.fromServer(
      Buffer.from(`[{"jsonrpc":"2.0","id":1,"result":{}},${rounded}]\n`),
    );
    assert.equal(first?.action.tool, "pay");
    assert.deepEqual(first?.action.arguments, { to: "b" });
    assert.equal(first?.action.requestText, repeated);
    assert.equal("responseText" in first!.action, false);
    assert.equal(second?.action.tool, "plain");
    assert.equal("requestText" in second!.action, false);
    assert.equal(second?.action.responseText, rounded);
    assert.deepEqual(warnings, [
      'tool pay (id 1): the request says more than JSON.parse reads of it (an object repeats the key "to"); its exact text is recorded too (requestText)',
      "tool plain (id 2): the response says more than JSON.parse reads of it (the number 9007199254740993 has more digits than JSON.parse keeps (it reads 9007199254740992)); its exact text is recorded too (responseText)",
    ]);
  });

  it("records nothing for other methods, for the server's own requests, or for a cancelled call", () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(line({ jsonrpc: "2.0", id: 7, method: "tools/list" }));
    assert.deepEqual(tracker.fromServer(line({ jsonrpc: "2.0", id: 7, result: { tools: [] } })), []);
    tracker.fromHost(call(8, "slow"));
    // A sampling request of the server's that happens to reuse the id 8
    assert.deepEqual(
      tracker.fromServer(line({ jsonrpc: "2.0", id: 8, method: "sampling/createMessage" })),
      [],
    );
    assert.equal(tracker.pendingCount, 1);
    tracker.fromHost(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 8 } }));
    assert.equal(tracker.pendingCount, 0);
  });

  it("records a response the server sends after the host cancelled the call", () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(call(9, "rm"));
    tracker.fromHost(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9 } }));
    assert.equal(tracker.pendingCount, 0);
    const [late] = tracker.fromServer(line({ jsonrpc: "2.0", id: 9, result: { content: [] } }));
    assert.equal(late?.action.tool, "rm");
    assert.equal(late?.action.callId, 9);
  });

  it("pairs the responses to an id the host reused while its first call was open in order, and says so", () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    tracker.fromHost(call(5, "read_file"));
    tracker.fromHost(call(5, "delete_file"));
    assert.match(warnings[0] ?? "", /reused the id 5/);
    const [first] = tracker.fromServer(line({ jsonrpc: "2.0", id: 5, result: { content: ["a"] } }));
    const [second] = tracker.fromServer(line({ jsonrpc: "2.0", id: 5, result: { content: ["b"] } }));
    assert.deepEqual([first?.action.tool, second?.action.tool], ["read_file", "delete_file"]);
  });

  it(`gives up the oldest call past ${MAX_PENDING_CALLS} waiting for responses, and says so`, () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    for (let id = 0; id <= MAX_PENDING_CALLS; id++) tracker.fromHost(call(id, `tool ${id}`));
    assert.equal(tracker.pendingCount, MAX_PENDING_CALLS);
    assert.deepEqual(warnings.length, 1);
    assert.match(warnings[0]!, /tool tool 0 \(id 0\)/);
    assert.deepEqual(tracker.fromServer(line({ jsonrpc: "2.0", id: 0, result: {} })), []);
    assert.equal(tracker.fromServer(line({ jsonrpc: "2.0", id: 1, result: {} }))[0]?.action.tool, "tool 1");
  });

  it("says so when a line of the server is not JSON while calls wait", () => {
    const warnings: string[] = [];
    const tracker = new ToolCallTracker({ warn: (message) => warnings.push(message) });
    tracker.fromHost(call(1, "nan"));
    // NaN is not JSON, though some servers' JSON writers send it
    assert.deepEqual(tracker.fromServer(Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"x":NaN}}\n')), []);
    assert.deepEqual(warnings, [
      "the server sent a line that is not JSON (44 bytes), forwarded as it is; a tools/call it answers is not recorded",
    ]);
  });

  it("records a tool name that is not text as its JSON text, whatever the host sent", () => {
    const tracker = new ToolCallTracker();
    const names = [{ toString: 1 }, [{ toString: 1 }], { toString: {}, valueOf: {} }, 5, null];
    names.forEach((name, id) =>
      tracker.fromHost(line({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } })),
    );
    tracker.fromHost(line({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { arguments: {} } }));
    const recorded = [...names.keys(), 9].map(
      (id) => tracker.fromServer(line({ jsonrpc: "2.0", id, result: { content: [] } }))[0]?.action.tool,
    );
    assert.deepEqual(recorded, [
      '{"toString":1}',
      '[{"toString":1}]',
      '{"toString":{},"valueOf":{}}',
      "5",
      "null",
      "undefined",
    ]);
  });

  it("reads JSON-RPC batches and ignores lines that are not JSON", () => {
    const tracker = new ToolCallTracker();
    tracker.fromHost(
      Buffer.from(
        `[${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "a" } })}]\n`,
      ),
    );
    tracker.fromHost(Buffer.from("not json\n"));
    const completed = tracker.fromServer(
      Buffer.from(`[${JSON.stringify({ jsonrpc: "2.0", id: 1, result: {} })}]\n`),
    );
    assert.deepEqual(
      completed.map((done) => [done.action.tool, done.action.arguments, done.index]),
      [["a", {}, 0]],
    );
  });
});

describe("arrayElementRanges", () => {
  it("finds each element of an array line, strings with brackets, commas and escapes included", () => {
    const text = ' [ {"id":1,"s":"a,]}\\"["} ,2, "x\\"y" ,[3,[4]],null ]\n';
    const line = Buffer.from(text);
    const ranges = arrayElementRanges(line)!;
    assert.deepEqual(
      ranges.map(([start, end]) => text.slice(start, end)),
      ['{"id":1,"s":"a,]}\\"["}', "2", '"x\\"y"', "[3,[4]]", "null"],
    );
    assert.deepEqual(arrayElementRanges(Buffer.from("[]\n")), []);
    assert.equal(arrayElementRanges(Buffer.from('{"id":1}\n')), undefined);
  });
});

describe("MessageLines", () => {
  it("cuts a stream into lines exactly as received, across chunk boundaries", () => {
    const lines = new MessageLines();
    const text = '{"a": 1}\n{ "b" :\t"é"}\n{"c":';
    const bytes = Buffer.from(text);
    const out: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 3) out.push(...lines.push(bytes.subarray(at, at + 3)));
    assert.deepEqual(
      out.map((piece) => piece.toString()),
      ['{"a": 1}\n', '{ "b" :\t"é"}\n'],
    );
    assert.equal(lines.rest()?.toString(), '{"c":');
  });
});
