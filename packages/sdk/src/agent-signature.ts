import { signMessageWithKeyPair } from "@abas/program-client";
import type { ReadonlyUint8Array, SignatureBytes } from "@solana/kit";

import type { ClientContext } from "./client-context.js";

/** The agent's Ed25519 signature of an attest or batch message. */
export async function signWithAgent(
  context: ClientContext,
  message: ReadonlyUint8Array,
): Promise<SignatureBytes> {
  const agent = await context.agent.getSigner();
  return await signMessageWithKeyPair(agent.keyPair, message);
}
