import type { ReadonlyUint8Array } from "@solana/kit";

import {
  CREDENTIAL_DISCRIMINATOR,
  getCredentialDecoder,
  getCredentialEncoder,
  type Credential,
} from "../generated/index.js";
import { decodeGeneratedAccount, type GeneratedAccountLayout } from "./generated-account.js";

/** A SAS Credential. The program's own has the program as authority, name `ABAS`, and no signers. */
export type CredentialAccount = Readonly<Omit<Credential, "discriminator">>;

const CREDENTIAL_LAYOUT: GeneratedAccountLayout<Credential> = {
  accountType: "Credential",
  discriminator: CREDENTIAL_DISCRIMINATOR,
  decoder: getCredentialDecoder(),
  encoder: getCredentialEncoder(),
};

export function decodeCredentialAccount(data: ReadonlyUint8Array): CredentialAccount {
  const { discriminator: _discriminator, ...credential } = decodeGeneratedAccount(CREDENTIAL_LAYOUT, data);
  return credential;
}
