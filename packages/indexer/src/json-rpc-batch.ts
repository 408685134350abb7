/**
 * JSON-RPC 2.0 batches over HTTP: many calls in one request, each answer matched to its call by id
 * (a server may answer in any order). kit's RPC client sends one HTTP request per call; a backfill
 * of thousands of transactions would spend its time in those round trips.
 */
import { rpcRequestOptions } from "./rpc-request-options.js";

/**
 * A batch that failed as a whole (an HTTP error, an answer that is not a batch's) or in part (a
 * call answered with an error, or not answered). Nothing of it is used: the poll fails and is
 * retried, as after any other RPC failure.
 */
export class JsonRpcBatchError extends Error {
  override readonly name = "JsonRpcBatchError";
}

export type JsonRpcCall = Readonly<{ method: string; params: readonly unknown[] }>;

type JsonRpcAnswer = Readonly<{
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown };
}>;

const describeRpcError = (error: JsonRpcAnswer["error"]): string =>
  `${String(error?.message ?? "no message")} (code ${String(error?.code ?? "none")})`;

/** Sends `calls` in one request; their results in the order of `calls`, or JsonRpcBatchError. */
export async function sendJsonRpcBatch(url: string, calls: readonly JsonRpcCall[]): Promise<unknown[]> {
  if (calls.length === 0) return [];
  const what = `a batch of ${calls.length} ${calls[0]!.method} calls`;
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map(({ method, params }, id) => ({ jsonrpc: "2.0", id, method, params }))),
    ...rpcRequestOptions(),
  });
  const body = await response.text();
  if (!response.ok)
    throw new JsonRpcBatchError(`${what} failed: HTTP ${response.status} ${body.slice(0, 200)}`);
  let answers: unknown;
  try {
    answers = JSON.parse(body);
  } catch {
    throw new JsonRpcBatchError(
      `${what} was answered with something that is not JSON: ${body.slice(0, 200)}`,
    );
  }
  if (!Array.isArray(answers)) {
    const error = (answers as JsonRpcAnswer | null)?.error;
    throw new JsonRpcBatchError(`${what} was not answered as a batch: ${describeRpcError(error)}`);
  }
  const results = new Array<unknown>(calls.length);
  const answered = new Set<number>();
  for (const answer of answers as (JsonRpcAnswer | null)[]) {
    const id = answer?.id;
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || id >= calls.length) continue;
    if (answer!.error !== undefined) {
      throw new JsonRpcBatchError(`call ${id} of ${what} failed: ${describeRpcError(answer!.error)}`);
    }
    results[id] = answer!.result;
    answered.add(id);
  }
  if (answered.size < calls.length) {
    throw new JsonRpcBatchError(`${calls.length - answered.size} calls of ${what} were not answered`);
  }
  return results;
}
