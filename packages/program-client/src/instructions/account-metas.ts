import type {
  AccountMeta,
  AccountSignerMeta,
  Instruction,
  InstructionWithAccounts,
  InstructionWithData,
  ProgramDerivedAddress,
  ProgramDerivedAddressBump,
  ReadonlyUint8Array,
} from "@solana/kit";

import type { DerivedAddress } from "../addresses.js";

/** An instruction of the program: accounts in the order the program reads them, and its data. */
export type AbasInstruction = Instruction &
  InstructionWithData<Uint8Array> &
  InstructionWithAccounts<readonly (AccountMeta | AccountSignerMeta)[]>;

/** A derived address as the generated builders take it: the address and the bump they encode. */
export const asProgramDerivedAddress = ({ address, bump }: DerivedAddress): ProgramDerivedAddress =>
  [address, bump as ProgramDerivedAddressBump] as const;

/** A generated instruction as an `AbasInstruction` (its data a plain `Uint8Array`). */
export const asAbasInstruction = (
  instruction: Instruction &
    InstructionWithData<ReadonlyUint8Array> &
    InstructionWithAccounts<readonly (AccountMeta | AccountSignerMeta)[]>,
): AbasInstruction => ({
  programAddress: instruction.programAddress,
  accounts: instruction.accounts,
  data: Uint8Array.from(instruction.data),
});
