/**
 * `jsonParsed` decoding of the System program's most used instructions (program "system"):
 * createAccount, assign, transfer and allocate. Other System instructions are not decoded.
 */
import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";
import type { DecodedInstruction } from "./token-instruction.js";

export const SYSTEM_PROGRAM = "11111111111111111111111111111111" as Address;

const CREATE_ACCOUNT = 0;
const ASSIGN = 1;
const TRANSFER = 2;
const ALLOCATE = 8;

/** The instruction's type and info, or undefined when it is not one of those decoded here. */
export function decodeSystemInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  if (data.length < 4) return undefined;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const tag = view.getUint32(0, true);
  const u64 = (at: number): bigint => view.getBigUint64(at, true);
  const key = (at: number): Address => toBase58(data.subarray(at, at + 32)) as Address;
  if (tag === CREATE_ACCOUNT && data.length === 52 && accounts.length >= 2) {
    return {
      type: "createAccount",
      info: {
        source: accounts[0],
        newAccount: accounts[1],
        lamports: u64(4),
        space: u64(12),
        owner: key(20),
      },
    };
  }
  if (tag === ASSIGN && data.length === 36 && accounts.length >= 1) {
    return { type: "assign", info: { account: accounts[0], owner: key(4) } };
  }
  if (tag === TRANSFER && data.length === 12 && accounts.length >= 2) {
    return { type: "transfer", info: { source: accounts[0], destination: accounts[1], lamports: u64(4) } };
  }
  if (tag === ALLOCATE && data.length === 12 && accounts.length >= 1) {
    return { type: "allocate", info: { account: accounts[0], space: u64(4) } };
  }
  return undefined;
}
