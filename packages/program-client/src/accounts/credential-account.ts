import type { Address, ReadonlyUint8Array } from "@solana/kit";

import { AccountDiscriminator, ADDRESS_SIZE } from "../constants.js";
import { AccountDataReader } from "./account-data-reader.js";

/** A SAS Credential. The program's own has the program as authority, name `ABAS`, and no signers. */
export type CredentialAccount = Readonly<{
  authority: Address;
  name: string;
  authorizedSigners: readonly Address[];
}>;

export function decodeCredentialAccount(data: ReadonlyUint8Array): CredentialAccount {
  const reader = new AccountDataReader(data, "Credential");
  reader.expectDiscriminator(AccountDiscriminator.Credential);
  const authority = reader.address("authority");
  const name = reader.string("name");
  const signerCount = reader.u32("authorized_signers");
  // Checked before allocating, so a huge count in corrupt data fails at once instead of looping.
  reader.expectAvailable("authorized_signers", signerCount * ADDRESS_SIZE);
  const authorizedSigners = Array.from({ length: signerCount }, () => reader.address("authorized_signers"));
  reader.expectEnd();
  return { authority, name, authorizedSigners };
}
