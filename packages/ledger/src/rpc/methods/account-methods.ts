/**
 * Accounts: getAccountInfo, getMultipleAccounts, getProgramAccounts, getBalance, rent. Reads wait
 * for the batch being synced, so they never show state that is not on disk.
 */
import type { EncodedAccount } from "@solana/kit";

import { sortedByAddressBytes } from "../../encoding.js";
import { encodeAccount, ledgerMintScales, readAccountView } from "../account-encoding.js";
import { MAX_ACCOUNT_SIZE, readAccountFilters } from "../account-filters.js";
import { invalidParams } from "../json-rpc.js";
import {
  addressParam,
  checkCommonConfig,
  configOrCommitment,
  configParam,
  integerParam,
  optionalBoolean,
  positional,
  requiredParam,
} from "../params.js";
import { settledSlot, withContext, type LedgerRpcMethod } from "../rpc-context.js";

const MAX_MULTIPLE_ACCOUNTS = 100;

const isPresent = (account: EncodedAccount | undefined): account is EncodedAccount =>
  account !== undefined && account.lamports > 0n;

export const accountMethods: Record<string, LedgerRpcMethod> = {
  getAccountInfo: async (params, { ledger }) => {
    const args = positional(params, "getAccountInfo", 2);
    const address = addressParam(requiredParam(args, 0, "pubkey"), "pubkey");
    const config = configParam(args, 1, "getAccountInfo");
    const view = readAccountView(config, "binary");
    const slot = await settledSlot(ledger, config);
    const account = ledger.account(address);
    return withContext(
      slot,
      isPresent(account) ? encodeAccount(account, view, ledgerMintScales(ledger)) : null,
    );
  },

  getMultipleAccounts: async (params, { ledger }) => {
    const args = positional(params, "getMultipleAccounts", 2);
    const addresses = requiredParam(args, 0, "pubkeys");
    if (!Array.isArray(addresses) || addresses.length > MAX_MULTIPLE_ACCOUNTS) {
      throw invalidParams(`pubkeys must be an array of at most ${MAX_MULTIPLE_ACCOUNTS} addresses`);
    }
    const config = configParam(args, 1, "getMultipleAccounts");
    const view = readAccountView(config, "base64");
    const slot = await settledSlot(ledger, config);
    const mintScales = ledgerMintScales(ledger);
    const value = addresses.map((value, i) => {
      const account = ledger.account(addressParam(value, `pubkeys[${i}]`));
      return isPresent(account) ? encodeAccount(account, view, mintScales) : null;
    });
    return withContext(slot, value);
  },

  getProgramAccounts: async (params, { ledger }) => {
    const args = positional(params, "getProgramAccounts", 2);
    const program = addressParam(requiredParam(args, 0, "program id"), "program id");
    const config = configParam(args, 1, "getProgramAccounts");
    const view = readAccountView(config, "binary");
    const matches = readAccountFilters(config.filters);
    const withContextOption = optionalBoolean(config, "withContext") ?? false;
    const slot = await settledSlot(ledger, config);
    const mintScales = ledgerMintScales(ledger);
    // The SVM's order changes when it is restored from a snapshot; clients get a validator's.
    const accounts = sortedByAddressBytes(
      ledger
        .programAccounts(program)
        .filter((account) => account.lamports > 0n && matches(account.data as Uint8Array)),
      (account) => account.address,
    ).map((account) => ({ pubkey: account.address, account: encodeAccount(account, view, mintScales) }));
    return withContextOption ? withContext(slot, accounts) : accounts;
  },

  getSupply: async (params, { ledger }) => {
    const config = configParam(positional(params, "getSupply", 1), 0, "getSupply");
    optionalBoolean(config, "excludeNonCirculatingAccountsList");
    const slot = await settledSlot(ledger, config);
    // No account is locked away from circulation here (no stake, no lockups), so every lamport circulates.
    const total = ledger.totalLamports();
    return withContext(slot, { total, circulating: total, nonCirculating: 0n, nonCirculatingAccounts: [] });
  },

  getBalance: async (params, { ledger }) => {
    const args = positional(params, "getBalance", 2);
    const address = addressParam(requiredParam(args, 0, "pubkey"), "pubkey");
    const slot = await settledSlot(ledger, configOrCommitment(args, 1, "getBalance"));
    return withContext(slot, ledger.balance(address));
  },

  getMinimumBalanceForRentExemption: (params, { ledger }) => {
    const args = positional(params, "getMinimumBalanceForRentExemption", 2);
    const size = integerParam(requiredParam(args, 0, "data length"), "data length", 0, MAX_ACCOUNT_SIZE);
    checkCommonConfig(configOrCommitment(args, 1, "getMinimumBalanceForRentExemption"), ledger.currentSlot());
    return ledger.rentExemptMinimum(size);
  },
};
