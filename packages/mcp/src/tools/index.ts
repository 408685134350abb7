import type { Tool } from "../define-tool.js";
import { getAgentAttestations } from "./get-agent-attestations.js";
import { getAgentReputation } from "./get-agent-reputation.js";
import { verifyActionHash } from "./verify-action-hash.js";

/** Every tool the server exposes, in the order tools/list shows them. */
export const TOOLS: readonly Tool[] = [getAgentAttestations, verifyActionHash, getAgentReputation];
