/**
 * `jsonParsed` decoding of the System program's instructions (program "system"), with a
 * validator's field names: tags 0 to 13 (the newest, createAccountAllowPrefund, included). The data
 * is bincode, a u32 tag then the fields (a string as a u64 length and UTF-8). Data or an account
 * list too short for its instruction is left partially decoded.
 */
import type { Address } from "@solana/kit";

import {
  accountsOf,
  decodeBincodeInstruction,
  type DecodedInstruction,
  type InstructionDecoder,
} from "./instruction-data.js";

export const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;

/** By the instruction's tag (SystemInstruction's variant index). */
const DECODERS: readonly InstructionDecoder[] = [
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const [lamports, space, owner] = [data.u64(), data.u64(), data.key()];
    return { type: "createAccount", info: { source: at(0), newAccount: at(1), lamports, space, owner } };
  },
  (accounts, data) => ({ type: "assign", info: { account: accountsOf(accounts, 1)(0), owner: data.key() } }),
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    return { type: "transfer", info: { source: at(0), destination: at(1), lamports: data.u64() } };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const [base, seed, lamports, space, owner] = [
      data.key(),
      data.string(),
      data.u64(),
      data.u64(),
      data.key(),
    ];
    return {
      type: "createAccountWithSeed",
      info: { source: at(0), newAccount: at(1), base, seed, lamports, space, owner },
    };
  },
  (accounts) => {
    const at = accountsOf(accounts, 3);
    return {
      type: "advanceNonce",
      info: { nonceAccount: at(0), recentBlockhashesSysvar: at(1), nonceAuthority: at(2) },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 5);
    return {
      type: "withdrawFromNonce",
      info: {
        nonceAccount: at(0),
        destination: at(1),
        recentBlockhashesSysvar: at(2),
        rentSysvar: at(3),
        nonceAuthority: at(4),
        lamports: data.u64(),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 3);
    return {
      type: "initializeNonce",
      info: {
        nonceAccount: at(0),
        recentBlockhashesSysvar: at(1),
        rentSysvar: at(2),
        nonceAuthority: data.key(),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    return {
      type: "authorizeNonce",
      info: { nonceAccount: at(0), nonceAuthority: at(1), newAuthorized: data.key() },
    };
  },
  (accounts, data) => ({
    type: "allocate",
    info: { account: accountsOf(accounts, 1)(0), space: data.u64() },
  }),
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const [base, seed, space, owner] = [data.key(), data.string(), data.u64(), data.key()];
    return { type: "allocateWithSeed", info: { account: at(0), base, seed, space, owner } };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const [base, seed, owner] = [data.key(), data.string(), data.key()];
    return { type: "assignWithSeed", info: { account: at(0), base, seed, owner } };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 3);
    const [lamports, sourceSeed, sourceOwner] = [data.u64(), data.string(), data.key()];
    return {
      type: "transferWithSeed",
      info: { source: at(0), sourceBase: at(1), destination: at(2), lamports, sourceSeed, sourceOwner },
    };
  },
  (accounts) => ({ type: "upgradeNonce", info: { nonceAccount: accountsOf(accounts, 1)(0) } }),
  (accounts, data) => {
    const [lamports, space, owner] = [data.u64(), data.u64(), data.key()];
    // Without lamports to move there is no funding account to name.
    if (lamports === 0n) {
      return {
        type: "createAccountAllowPrefund",
        info: { newAccount: accountsOf(accounts, 1)(0), space, owner },
      };
    }
    const at = accountsOf(accounts, 2);
    return {
      type: "createAccountAllowPrefund",
      info: { newAccount: at(0), source: at(1), lamports, space, owner },
    };
  },
];

/** The instruction's type and info, or undefined when it is not decodable. */
export function decodeSystemInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  return decodeBincodeInstruction(DECODERS, accounts, data);
}
