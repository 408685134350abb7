import {
  AccountRole,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type InstructionWithAccounts,
  type InstructionWithData,
  type TransactionSigner,
} from "@solana/kit";

/** An instruction of the program: accounts in the order the program reads them, and its data. */
export type AbasInstruction = Instruction &
  InstructionWithData<Uint8Array> &
  InstructionWithAccounts<readonly (AccountMeta | AccountSignerMeta)[]>;

/** Signers are kept in their account metas so that `signTransactionMessageWithSigners` finds them. */
export const writableSigner = (signer: TransactionSigner): AccountSignerMeta => ({
  address: signer.address,
  role: AccountRole.WRITABLE_SIGNER,
  signer,
});

export const readonlySigner = (signer: TransactionSigner): AccountSignerMeta => ({
  address: signer.address,
  role: AccountRole.READONLY_SIGNER,
  signer,
});

export const writable = (address: Address): AccountMeta => ({ address, role: AccountRole.WRITABLE });

export const readonly = (address: Address): AccountMeta => ({ address, role: AccountRole.READONLY });
