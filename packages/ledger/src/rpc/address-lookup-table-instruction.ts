/**
 * `jsonParsed` decoding of the Address Lookup Table program's instructions (program
 * "address-lookup-table"), with a validator's field names. The data is bincode: a u32 tag, then
 * the fields (new addresses as a u64 count and 32 bytes each). Data or an account list too short
 * for its instruction is left partially decoded.
 */
import type { Address } from "@solana/kit";

import {
  accountsOf,
  decodeBincodeInstruction,
  type DecodedInstruction,
  type InstructionDecoder,
} from "./instruction-data.js";

/** The table and its authority, the first two accounts of every instruction. */
function tableAndAuthority(accounts: readonly Address[], needed: number) {
  const at = accountsOf(accounts, needed);
  return { at, info: { lookupTableAccount: at(0), lookupTableAuthority: at(1) } };
}

/** By the instruction's tag (ProgramInstruction's variant index). */
const DECODERS: readonly InstructionDecoder[] = [
  (accounts, data) => {
    const { at, info } = tableAndAuthority(accounts, 4);
    const [recentSlot, bumpSeed] = [data.u64(), data.u8()];
    return {
      type: "createLookupTable",
      info: { ...info, payerAccount: at(2), systemProgram: at(3), recentSlot, bumpSeed },
    };
  },
  (accounts) => ({ type: "freezeLookupTable", info: tableAndAuthority(accounts, 2).info }),
  (accounts, data) => {
    const { at, info } = tableAndAuthority(accounts, 2);
    // The payer and the System program come only when the table must grow and is funded.
    const payer = accounts.length >= 4 ? { payerAccount: at(2), systemProgram: at(3) } : {};
    return { type: "extendLookupTable", info: { ...info, ...payer, newAddresses: data.keys() } };
  },
  (accounts) => ({ type: "deactivateLookupTable", info: tableAndAuthority(accounts, 2).info }),
  (accounts) => {
    const { at, info } = tableAndAuthority(accounts, 3);
    return { type: "closeLookupTable", info: { ...info, recipient: at(2) } };
  },
];

/** The instruction's type and info, or undefined when it is not decodable. */
export function decodeAddressLookupTableInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  return decodeBincodeInstruction(DECODERS, accounts, data);
}
