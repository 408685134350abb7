/**
 * `jsonParsed` decoding of the Associated Token Account program's instructions (program
 * "spl-associated-token-account"): create (also its older empty-data form), createIdempotent and
 * recoverNested.
 */
import type { Address } from "@solana/kit";

import type { DecodedInstruction } from "./instruction-data.js";

const CREATE_ACCOUNTS = ["source", "account", "wallet", "mint", "systemProgram", "tokenProgram"];
const RECOVER_NESTED_ACCOUNTS = [
  "nestedSource",
  "nestedMint",
  "destination",
  "nestedOwner",
  "ownerMint",
  "wallet",
  "tokenProgram",
];

/** Instruction types by their one data byte; no data at all is the original create. */
const INSTRUCTIONS: Readonly<Record<number, { type: string; accounts: readonly string[] }>> = {
  0: { type: "create", accounts: CREATE_ACCOUNTS },
  1: { type: "createIdempotent", accounts: CREATE_ACCOUNTS },
  2: { type: "recoverNested", accounts: RECOVER_NESTED_ACCOUNTS },
};

export function decodeAssociatedTokenInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  if (data.length > 1) return undefined;
  const instruction = INSTRUCTIONS[data.length === 0 ? 0 : data[0]!];
  if (instruction === undefined || accounts.length < instruction.accounts.length) return undefined;
  return {
    type: instruction.type,
    info: Object.fromEntries(instruction.accounts.map((name, position) => [name, accounts[position]])),
  };
}
