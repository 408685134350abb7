/**
 * What the official MCP TypeScript client (the reference host) takes as the response to one of its
 * requests. A response it drops leaves its call open, so the next answer the server sends is the one
 * the host acts on: the proxy must never record a response the host drops. The schemas mirror the
 * client's own (`JSONRPCResultResponseSchema`, `JSONRPCErrorResponseSchema` of
 * `@modelcontextprotocol/sdk`); `host-reading.test.ts` checks that they agree with it.
 */
import { z } from "zod";

/** The client's read buffer: a line that overflows it is dropped, with what was buffered. */
export const HOST_READ_BUFFER_BYTES = 10 * 1024 * 1024;
/**
 * The longest line the client is sure to read: the buffer also holds the rest of the chunk that ends
 * the line, and a pipe hands a reader at most 64 KiB at a time.
 */
export const MAX_READ_LINE_BYTES = HOST_READ_BUFFER_BYTES - 64 * 1024;

const REQUEST_ID = z.union([z.string(), z.number().int()]);

const RESULT_RESPONSE = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: REQUEST_ID,
    result: z.looseObject({
      _meta: z
        .looseObject({
          progressToken: z.union([z.string(), z.number().int()]).optional(),
          "io.modelcontextprotocol/related-task": z.object({ taskId: z.string() }).optional(),
        })
        .optional(),
    }),
  })
  .strict();

const ERROR_RESPONSE = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: REQUEST_ID.optional(),
    error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }),
  })
  .strict();

const RESPONSE_MEMBERS = ["jsonrpc", "id", "result", "error"];

/** A value named by its kind, never by its text (which may be megabytes, or nested past any stack). */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Why the client drops `message` as the response to a request, if it does: the first reason, in
 * words; undefined when it takes it.
 */
export function whyHostDropsResponse(message: Record<string, unknown>): string | undefined {
  if (message.jsonrpc !== "2.0")
    return typeof message.jsonrpc === "string"
      ? `its "jsonrpc" is ${JSON.stringify(message.jsonrpc.slice(0, 20))}, not "2.0"`
      : `its "jsonrpc" is ${message.jsonrpc === undefined ? "missing" : kindOf(message.jsonrpc)}, not "2.0"`;
  const other = Object.keys(message).find((member) => !RESPONSE_MEMBERS.includes(member));
  if (other !== undefined)
    return `it has a member ${JSON.stringify(other.slice(0, 40))} beside jsonrpc, id, result and error`;
  if ("result" in message && "error" in message) return "it has both a result and an error";
  if (!("result" in message) && !("error" in message)) return "it has neither a result nor an error";
  const schema = "result" in message ? RESULT_RESPONSE : ERROR_RESPONSE;
  const checked = schema.safeParse(message);
  if (checked.success) return undefined;
  const issue = checked.error.issues[0]!;
  return `its ${issue.path.map(String).join(".")} is not what the MCP client reads (${issue.message})`;
}
