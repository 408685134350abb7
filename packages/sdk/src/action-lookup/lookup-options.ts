import { ABAS_SDK__INVALID_ARGUMENT, AbasError } from "@abas/errors";
import type { Commitment } from "@solana/kit";

import { parseCommitment, parseProgramId, parseRpcUrl } from "../client-config.js";
import { createTimedSolanaRpc, DEFAULT_REQUEST_TIMEOUT_MS } from "../rpc-transport.js";
import type { AttestationIndex } from "./attestation-index.js";
import type { LookupContext } from "./lookup-context.js";

export type LookupOptions = Readonly<{
  /** Any RPC node of the ledger: every answer is read and checked there. */
  rpcUrl: string;
  /** The ABAS program; default `LOCAL_PROGRAM_ID`. */
  programId?: string;
  /** Finds attestations by stored hash: an `ApiClient`, or the service's database. */
  index?: AttestationIndex;
  /** Default `"confirmed"`. */
  commitment?: Commitment;
  /** Stops the lookup: it rejects with the signal's reason. */
  abortSignal?: AbortSignal;
  /** At most this many attestations are checked; default 10. */
  maxCandidates?: number;
  /**
   * At most this many index entries are read (newest first, in pages of 100) when the index is
   * searched; default 1,000. The earliest of them are checked first.
   */
  maxIndexEntries?: number;
}>;

export const DEFAULT_MAX_CANDIDATES = 10;
export const DEFAULT_MAX_INDEX_ENTRIES = 1_000;

/** A bound such as `maxCandidates`: a whole number, 1 or more, or the default when not given. */
export function countOption(
  options: LookupOptions,
  name: "maxCandidates" | "maxIndexEntries",
  fallback: number,
): number {
  const value = options[name] ?? fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, {
      argument: name,
      reason: "expected a whole number, 1 or more",
    });
  }
  return value;
}

export function lookupContext(options: LookupOptions): LookupContext {
  if (typeof options !== "object" || options === null) {
    throw new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument: "options", reason: "expected an object" });
  }
  const maxIndexEntries = countOption(options, "maxIndexEntries", DEFAULT_MAX_INDEX_ENTRIES);
  const programId = parseProgramId(options.programId);
  const rpcUrl = parseRpcUrl(options.rpcUrl);
  return {
    rpc: createTimedSolanaRpc(rpcUrl, DEFAULT_REQUEST_TIMEOUT_MS),
    rpcUrl,
    programId,
    commitment: parseCommitment(options.commitment),
    index: options.index,
    maxIndexEntries,
    abortSignal: options.abortSignal,
  };
}

/** `work`, or the abort signal's reason as soon as it fires. */
export function untilAborted<T>(work: Promise<T>, abortSignal: AbortSignal | undefined): Promise<T> {
  if (abortSignal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortSignal.reason as Error);
    if (abortSignal.aborted) return onAbort();
    abortSignal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => abortSignal.removeEventListener("abort", onAbort));
  });
}
