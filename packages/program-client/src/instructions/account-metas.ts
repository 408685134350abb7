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

import { INSTRUCTIONS_SYSVAR_ADDRESS, SYSTEM_PROGRAM_ADDRESS } from "../constants.js";

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

/**
 * The seven accounts of `attest` and `attest_batch`, in the order the program's shared loader
 * reads them: operator (pays), agent account, the record to create, credential, schema,
 * instructions sysvar, system program.
 */
export function recordingAccountMetas(accounts: {
  operator: TransactionSigner;
  agentAccount: Address;
  record: Address;
  credential: Address;
  schema: Address;
}): (AccountMeta | AccountSignerMeta)[] {
  return [
    writableSigner(accounts.operator),
    writable(accounts.agentAccount),
    writable(accounts.record),
    readonly(accounts.credential),
    readonly(accounts.schema),
    readonly(INSTRUCTIONS_SYSVAR_ADDRESS),
    readonly(SYSTEM_PROGRAM_ADDRESS),
  ];
}
