/** AttestationClients built from the global settings and the key files named on the command line. */
import { existsSync } from "node:fs";
import { homedir } from "node:os";

import { AttestationClient, loadKeypair, type VerifyReceiptOptions } from "@abas/sdk";
import { generateKeyPairSigner, isAddress, type KeyPairSigner } from "@solana/kit";

import type { GlobalSettings } from "./parse-options.js";
import { UsageError } from "./usage-error.js";

const expandHome = (path: string): string => (path.startsWith("~/") ? `${homedir()}${path.slice(1)}` : path);

/** The key file of an option, checked to exist so the error names the option and the path. */
export function keypairPath(path: string, option: string): string {
  if (!existsSync(expandHome(path))) {
    throw new UsageError(`${option}: no key file at ${path} (create one with: abas keygen --out ${path})`);
  }
  return path;
}

/** The key pair in the key file of an option; a file that holds no key pair is named with the option. */
export async function loadKeypairOption(path: string, option: string): Promise<KeyPairSigner> {
  return await loadKeypair(keypairPath(path, option), option);
}

export function createClient(settings: GlobalSettings, agentKeypair: KeyPairSigner): AttestationClient {
  return new AttestationClient({
    rpcUrl: settings.rpcUrl,
    agentKeypair,
    ...(settings.programId === undefined ? {} : { programId: settings.programId }),
  });
}

/** Where receipts are verified, and the ABAS program whose receipts count (--program-id, PROGRAM_ID). */
export function trustedLedger(settings: GlobalSettings): VerifyReceiptOptions {
  return {
    rpcUrl: settings.rpcUrl,
    ...(settings.programId === undefined ? {} : { programId: settings.programId }),
  };
}

/**
 * A client for reading the ledger only (agents, attestations): the SDK's client needs an agent key,
 * and these reads never sign, so a throwaway key stands in.
 */
export async function createReadOnlyClient(settings: GlobalSettings): Promise<AttestationClient> {
  return createClient(settings, await generateKeyPairSigner());
}

/** An account given as a key file or as its address; `whose` names the account in the error ("agent"). */
export function parseAddressReference(
  value: string,
  option: string,
  whose: string,
): { address: string } | { path: string } {
  if (existsSync(expandHome(value))) return { path: value };
  if (isAddress(value)) return { address: value };
  throw new UsageError(`${option}: "${value}" is neither a key file nor a base58 ${whose} address`);
}
