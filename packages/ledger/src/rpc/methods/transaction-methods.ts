/** Submitting and simulating: sendTransaction, simulateTransaction, requestAirdrop. */
import type { Address } from "@solana/kit";

import type { Simulation } from "../../ledger/execute-transaction.js";
import { LedgerClosedError } from "../../ledger/group-commit.js";
import { LedgerWriteError } from "../../ledger/ledger.js";
import { fromBase58, fromBase64 } from "../../encoding.js";
import { describeTransactionError } from "../../transactions/transaction-error.js";
import {
  MalformedTransactionError,
  parseWireTransaction,
  type WireTransaction,
} from "../../transactions/wire-transaction.js";
import { encodeAccount, ledgerMintScales, readAccountView } from "../account-encoding.js";
import { invalidParams, RpcError, RpcErrorCode } from "../json-rpc.js";
import {
  addressParam,
  checkCommonConfig,
  configOrCommitment,
  configParam,
  optionalBoolean,
  optionalEnum,
  optionalInteger,
  positional,
  requiredParam,
  stringParam,
  u64Param,
  type Config,
} from "../params.js";
import { withContext, type LedgerRpcMethod } from "../rpc-context.js";

/** The `encoding` of an encoded transaction parameter: base58 unless the config says base64. */
function decodeTransactionParam(value: unknown, config: Config): WireTransaction {
  const text = stringParam(value, "the transaction");
  const encoding = optionalEnum(config, "encoding", ["base58", "base64"] as const) ?? "base58";
  let bytes: Uint8Array;
  try {
    bytes = encoding === "base64" ? fromBase64(text) : fromBase58(text);
  } catch {
    throw invalidParams(`the transaction is not valid ${encoding}`);
  }
  try {
    return parseWireTransaction(bytes);
  } catch (error) {
    if (error instanceof MalformedTransactionError) {
      throw invalidParams(`failed to deserialize the transaction: ${error.message}`);
    }
    throw error;
  }
}

function returnDataOf(simulation: Simulation): unknown {
  return simulation.returnData === null
    ? null
    : { programId: simulation.returnData.programId, data: [simulation.returnData.data, "base64"] };
}

function preflightFailure(simulation: Simulation): RpcError {
  const err = simulation.err ?? "SanitizeFailure";
  return new RpcError(
    RpcErrorCode.SEND_TRANSACTION_PREFLIGHT_FAILURE,
    `Transaction simulation failed: ${describeTransactionError(err)}`,
    {
      err,
      logs: simulation.logMessages,
      accounts: null,
      unitsConsumed: simulation.computeUnitsConsumed,
      returnData: returnDataOf(simulation),
      innerInstructions: null,
      replacementBlockhash: null,
    },
  );
}

const signatureVerificationFailure = (): RpcError =>
  new RpcError(
    RpcErrorCode.TRANSACTION_SIGNATURE_VERIFICATION_FAILURE,
    "Transaction signature verification failure",
  );

const MAX_SIMULATION_ACCOUNTS = 256;

async function refuseAfterWriteFailure<T>(submit: () => Promise<T>): Promise<T> {
  try {
    return await submit();
  } catch (error) {
    if (error instanceof LedgerWriteError || error instanceof LedgerClosedError) {
      throw new RpcError(RpcErrorCode.INTERNAL_ERROR, error.message);
    }
    throw error;
  }
}

export const transactionMethods: Record<string, LedgerRpcMethod> = {
  sendTransaction: async (params, { ledger }) => {
    const args = positional(params, "sendTransaction", 2);
    const config = configParam(args, 1, "sendTransaction");
    const transaction = decodeTransactionParam(requiredParam(args, 0, "transaction"), config);
    const skipPreflight = optionalBoolean(config, "skipPreflight") ?? false;
    optionalInteger(config, "maxRetries", 0, Number.MAX_SAFE_INTEGER);
    optionalEnum(config, "preflightCommitment", ["processed", "confirmed", "finalized"]);
    checkCommonConfig(config, ledger.currentSlot());
    const outcome = await refuseAfterWriteFailure(() =>
      ledger.send(transaction, { preflight: !skipPreflight }),
    );
    if (outcome.kind === "refused") {
      throw outcome.reason === "signature"
        ? signatureVerificationFailure()
        : preflightFailure(outcome.simulation);
    }
    // Landed or dropped, the answer is the signature; a client learns which from its status.
    return transaction.signature;
  },

  simulateTransaction: async (params, { ledger }) => {
    const args = positional(params, "simulateTransaction", 2);
    const config = configParam(args, 1, "simulateTransaction");
    const transaction = decodeTransactionParam(requiredParam(args, 0, "transaction"), config);
    const sigVerify = optionalBoolean(config, "sigVerify") ?? false;
    const replaceRecentBlockhash = optionalBoolean(config, "replaceRecentBlockhash") ?? false;
    const includeInnerInstructions = optionalBoolean(config, "innerInstructions") ?? false;
    if (sigVerify && replaceRecentBlockhash) {
      throw invalidParams("sigVerify may not be used with replaceRecentBlockhash");
    }
    const slot = ledger.currentSlot();
    checkCommonConfig(config, slot);
    let requested: { addresses: Address[]; view: ReturnType<typeof readAccountView> } | undefined;
    if (config.accounts !== undefined && config.accounts !== null) {
      const accounts = config.accounts as Config;
      const addresses = accounts.addresses;
      if (!Array.isArray(addresses) || addresses.length > MAX_SIMULATION_ACCOUNTS) {
        throw invalidParams(
          `accounts.addresses must be an array of at most ${MAX_SIMULATION_ACCOUNTS} addresses`,
        );
      }
      if (accounts.encoding === "binary" || accounts.encoding === "base58") {
        throw invalidParams("accounts.encoding must be base64 or jsonParsed");
      }
      requested = {
        addresses: addresses.map((value, i) => addressParam(value, `accounts.addresses[${i}]`)),
        view: readAccountView(accounts, "base64"),
      };
    }
    if (sigVerify && !ledger.verifySignatures(transaction)) throw signatureVerificationFailure();
    await ledger.settled();
    const simulation = ledger.simulate(transaction, { sigVerify, replaceRecentBlockhash });
    const latest = replaceRecentBlockhash ? ledger.latestBlockhash() : undefined;
    const accountAfter = (address: Address) =>
      simulation.postAccounts.get(address) ?? ledger.account(address);
    // Token amounts are read with the mints as the simulation left them.
    const mintScales = ledgerMintScales(ledger, accountAfter);
    const accounts =
      requested === undefined || simulation.err !== null
        ? null
        : requested.addresses.map((address) => {
            const account = accountAfter(address);
            return account === undefined || account.lamports === 0n
              ? null
              : encodeAccount(account, requested.view, mintScales);
          });
    return withContext(slot, {
      err: simulation.err,
      logs: simulation.logMessages,
      accounts,
      unitsConsumed: simulation.computeUnitsConsumed,
      returnData: returnDataOf(simulation),
      innerInstructions: includeInnerInstructions ? simulation.innerInstructions : null,
      replacementBlockhash:
        latest === undefined
          ? null
          : { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight },
      loadedAddresses: simulation.loadedAddresses,
    });
  },

  requestAirdrop: async (params, { ledger }) => {
    const args = positional(params, "requestAirdrop", 3);
    const recipient = addressParam(requiredParam(args, 0, "pubkey"), "pubkey");
    const lamports = u64Param(requiredParam(args, 1, "lamports"), "lamports");
    if (lamports === 0n) throw invalidParams("lamports must be greater than 0");
    checkCommonConfig(configOrCommitment(args, 2, "requestAirdrop"), ledger.currentSlot());
    const result = await refuseAfterWriteFailure(() => ledger.requestAirdrop(recipient, lamports));
    if ("error" in result)
      throw new RpcError(RpcErrorCode.INTERNAL_ERROR, `airdrop request failed: ${result.error}`);
    return result.signature;
  },
};
