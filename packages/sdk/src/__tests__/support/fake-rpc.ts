import type { Rpc, SolanaRpcApi } from "@solana/kit";

export type RpcCall = Readonly<{ method: string; params: readonly unknown[] }>;
type Handler = (...params: never[]) => unknown;

/**
 * A stand-in for kit's RPC object: `rpc.method(...params).send()` calls `handlers[method]` and
 * records the call. A method without a handler fails, so a test names every request it expects.
 */
export function createFakeRpc(handlers: Record<string, Handler>): {
  rpc: Rpc<SolanaRpcApi>;
  calls: RpcCall[];
} {
  const calls: RpcCall[] = [];
  const rpc = new Proxy(
    {},
    {
      get:
        (_target, method: string) =>
        (...params: unknown[]) => ({
          send: async () => {
            calls.push({ method, params });
            const handler = handlers[method];
            if (!handler) throw new Error(`unexpected RPC request ${method}`);
            return await (handler as (...args: unknown[]) => unknown)(...params);
          },
        }),
    },
  );
  return { rpc: rpc as Rpc<SolanaRpcApi>, calls };
}

export const callsOf = (calls: readonly RpcCall[], method: string): RpcCall[] =>
  calls.filter((call) => call.method === method);
