/**
 * The headers the Solana Actions specification asks of every Action endpoint and of actions.json:
 * CORS open to every origin (blink clients fetch from their own), the spec version, and the chain
 * (CAIP-2) the Action is about.
 */
import type { FastifyReply } from "fastify";

/** The version of the Actions specification these endpoints follow (@solana/actions-spec 2.4). */
export const ACTION_VERSION = "2.4";

export const ACTIONS_CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET,POST,PUT,OPTIONS",
  "access-control-allow-headers":
    "Content-Type, Authorization, Content-Encoding, Accept-Encoding, X-Accept-Action-Version, X-Accept-Blockchain-Ids",
  "access-control-expose-headers": "X-Action-Version, X-Blockchain-Ids",
} as const;

export function setActionHeaders(reply: FastifyReply, blockchainId: string | undefined): void {
  reply.headers(ACTIONS_CORS_HEADERS);
  reply.header("x-action-version", ACTION_VERSION);
  if (blockchainId !== undefined) reply.header("x-blockchain-ids", blockchainId);
}
