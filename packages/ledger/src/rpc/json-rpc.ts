/**
 * JSON-RPC 2.0 framing shared by the HTTP and WebSocket servers: request validation, batches,
 * notifications (requests without an id get no response), and the error codes of the spec and
 * of Solana validators.
 */
import type { Logger } from "../logger.js";
import { stringifyJson } from "./json.js";

export const RpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  SEND_TRANSACTION_PREFLIGHT_FAILURE: -32002,
  TRANSACTION_SIGNATURE_VERIFICATION_FAILURE: -32003,
  BLOCK_NOT_AVAILABLE: -32004,
  NODE_UNHEALTHY: -32005,
  UNSUPPORTED_TRANSACTION_VERSION: -32015,
  MIN_CONTEXT_SLOT_NOT_REACHED: -32016,
} as const;

export class RpcError extends Error {
  override readonly name = "RpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const invalidParams = (detail: string): RpcError =>
  new RpcError(RpcErrorCode.INVALID_PARAMS, `Invalid params: ${detail}`);

export type RequestId = string | number | null;

export interface JsonRpcRequest {
  readonly method: string;
  readonly params: unknown;
  /** Absent for notifications. */
  readonly id?: RequestId;
}

export type RpcMethod<TContext> = (params: unknown, context: TContext) => unknown;

export type RpcMethods<TContext> = ReadonlyMap<string, RpcMethod<TContext>>;

export interface JsonRpcResponse {
  readonly jsonrpc: "2.0";
  readonly id: RequestId;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

export const errorResponse = (id: RequestId, error: RpcError): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: {
    code: error.code,
    message: error.message,
    ...(error.data === undefined ? {} : { data: error.data }),
  },
});

function validateRequest(value: unknown): JsonRpcRequest | { invalid: RpcError; id: RequestId } {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      invalid: new RpcError(RpcErrorCode.INVALID_REQUEST, "Invalid request: not a JSON-RPC object"),
      id: null,
    };
  }
  const request = value as Record<string, unknown>;
  const id = request.id;
  const validId = id === undefined || id === null || typeof id === "string" || typeof id === "number";
  const echoedId = validId && id !== undefined ? id : null;
  const invalid = (why: string) => ({
    invalid: new RpcError(RpcErrorCode.INVALID_REQUEST, `Invalid request: ${why}`),
    id: echoedId,
  });
  if (!validId) return invalid("id must be a string, a number or null");
  if (request.jsonrpc !== "2.0") return invalid('jsonrpc must be "2.0"');
  if (typeof request.method !== "string") return invalid("method must be a string");
  if (request.params !== undefined && (typeof request.params !== "object" || request.params === null)) {
    return invalid("params must be an array or an object");
  }
  return {
    method: request.method,
    params: request.params,
    ...(id === undefined ? {} : { id: id as RequestId }),
  };
}

/** Runs one parsed request; returns its response, or undefined for a notification. */
export async function handleRequest<TContext>(
  value: unknown,
  methods: RpcMethods<TContext>,
  context: TContext,
  logger: Logger,
): Promise<JsonRpcResponse | undefined> {
  const request = validateRequest(value);
  if ("invalid" in request) return errorResponse(request.id, request.invalid);
  const id = request.id ?? null;
  logger.debug("rpc request", { method: request.method });
  const method = methods.get(request.method);
  if (method === undefined) {
    if (request.id === undefined) return undefined;
    return errorResponse(
      id,
      new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `Method not found: ${request.method}`),
    );
  }
  try {
    const result = await method(request.params, context);
    return request.id === undefined ? undefined : { jsonrpc: "2.0", id, result };
  } catch (error) {
    if (error instanceof RpcError) {
      logger.debug("rpc error", { method: request.method, code: error.code, message: error.message });
      return request.id === undefined ? undefined : errorResponse(id, error);
    }
    logger.error("rpc method failed", {
      method: request.method,
      reason: (error as Error).stack ?? String(error),
    });
    return request.id === undefined
      ? undefined
      : errorResponse(id, new RpcError(RpcErrorCode.INTERNAL_ERROR, "Internal error"));
  }
}

/** Parses a request body (single request or batch) and returns the body of the reply, if any. */
export async function handlePayload<TContext>(
  payload: string,
  methods: RpcMethods<TContext>,
  context: TContext,
  logger: Logger,
): Promise<string | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return stringifyJson(errorResponse(null, new RpcError(RpcErrorCode.PARSE_ERROR, "Parse error")));
  }
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) {
      return stringifyJson(
        errorResponse(null, new RpcError(RpcErrorCode.INVALID_REQUEST, "Invalid request: empty batch")),
      );
    }
    const responses: JsonRpcResponse[] = [];
    // In order, one after another: requests in a batch may depend on each other's effects.
    for (const item of parsed) {
      const response = await handleRequest(item, methods, context, logger);
      if (response !== undefined) responses.push(response);
    }
    return responses.length === 0 ? undefined : stringifyJson(responses);
  }
  const response = await handleRequest(parsed, methods, context, logger);
  return response === undefined ? undefined : stringifyJson(response);
}
