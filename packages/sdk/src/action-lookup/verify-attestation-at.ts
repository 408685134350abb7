/**
 * Verifies the attestation recorded at one ledger account (or one item of a batch account), as an
 * index or a link names it: the receipt is rebuilt from the ledger and checked with `verifyReceipt`.
 */
import {
  ABAS_RUNTIME__ATTESTATION_NOT_FOUND,
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_SDK__INVALID_ARGUMENT,
  AbasError,
} from "@abas/errors";

import { assertObject, parseAddress, parseHash, parseSalt } from "../input-validation.js";
import { readLedgerAttestation } from "./ledger-attestations.js";
import { lookupContext, untilAborted, type LookupOptions } from "./lookup-options.js";
import { verifyCandidate, type ReceiptOpening } from "./verify-candidate.js";
import type { VerifiedAttestation } from "./verified-attestation.js";

export type AttestationLocation = ReceiptOpening &
  Readonly<{
    /** The attestation account, or the batch account of a batch item. */
    address: string;
    /** For a batch account: the item's position, from 0. */
    batchIndex?: number;
    /** The recording transaction; found from the account's history when absent. */
    txSignature?: string;
  }>;

function invalid(argument: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_ARGUMENT, { argument, reason });
}

async function verifyAt(location: AttestationLocation, options: LookupOptions): Promise<VerifiedAttestation> {
  assertObject(location, "location");
  const context = lookupContext(options);
  const address = parseAddress(location.address, "address");
  if (location.actionHash !== undefined) parseHash(location.actionHash, "actionHash");
  if (location.salt !== undefined) parseSalt(location.salt);
  location.proof?.forEach((sibling, i) => parseHash(sibling, `proof[${i}]`));
  const { batchIndex } = location;
  if (batchIndex !== undefined && (!Number.isInteger(batchIndex) || batchIndex < 0)) {
    throw invalid("batchIndex", "expected an item position, from 0");
  }

  const ledger = await readLedgerAttestation(context, address);
  if (ledger === null) {
    throw new AbasError(ABAS_RUNTIME__ATTESTATION_NOT_FOUND, { address, programId: context.programId });
  }
  if (ledger.kind === "batch") {
    if (batchIndex === undefined)
      throw invalid("batchIndex", `${address} is a batch: give the item's position`);
    if (batchIndex >= ledger.account.itemCount) {
      throw new AbasError(ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE, {
        batchAddress: address,
        index: batchIndex,
        itemCount: ledger.account.itemCount,
      });
    }
  } else if (batchIndex !== undefined) {
    throw invalid("batchIndex", `${address} is a single attestation, not a batch`);
  }
  const opening: ReceiptOpening = {
    ...(location.actionHash === undefined ? {} : { actionHash: location.actionHash.toLowerCase() }),
    ...(location.salt === undefined ? {} : { salt: location.salt.toLowerCase() }),
    ...(location.proof === undefined ? {} : { proof: location.proof.map((s) => s.toLowerCase()) }),
  };
  return await verifyCandidate(
    context,
    {
      ledger,
      ...(batchIndex === undefined ? {} : { batchIndex }),
      ...(location.txSignature === undefined ? {} : { txSignature: location.txSignature }),
    },
    opening,
  );
}

/**
 * Verifies the attestation at `address` (with `batchIndex` for a batch item). Without the action
 * hash and salt, a privacy-mode attestation is verified except for opening its commitment
 * (`commitmentOpened: false`). Throws `ABAS_RUNTIME__ATTESTATION_NOT_FOUND` when the ledger has no
 * attestation of the program there, `ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE`,
 * `ABAS_RUNTIME__RPC_REQUEST_FAILED`, and `ABAS_SDK__*` for bad input.
 */
export async function verifyAttestationAt(
  location: AttestationLocation,
  options: LookupOptions,
): Promise<VerifiedAttestation> {
  return await untilAborted(verifyAt(location, options), options?.abortSignal);
}
