/**
 * jsonParsed account keys as a validator annotates them: a key a transaction's header makes
 * writable shows read-only when the runtime never write-locks it (a sysvar, a builtin program), or
 * when it is a program an instruction calls and the upgradeable loader is not among the keys.
 * The transactions are compiled by @solana/kit, which never marks those keys writable itself, so
 * each test then rewrites the compiled header to mark every unsigned key writable (a fault put in
 * on purpose: such a header comes from other compilers).
 */
import assert from "node:assert/strict";
import { test } from "node:test";

import { ABAS_ATTESTATION_PROGRAM_ADDRESS } from "@abas/program-client";
import { getTransferSolInstruction } from "@solana-program/system";
import {
  AccountRole,
  address,
  generateKeyPairSigner,
  getBase58Decoder,
  type Blockhash,
  type Instruction,
} from "@solana/kit";

import { instructionParsers } from "../rpc/parsed-instruction.js";
import { renderTransaction } from "../rpc/transaction-encoding.js";
import { parseWireTransaction } from "../transactions/wire-transaction.js";
import { signInstructions } from "./support/transactions.js";

const SYSTEM_PROGRAM = address("11111111111111111111111111111111");
const RENT_SYSVAR = address("SysvarRent111111111111111111111111111111111");
const TOKEN_PROGRAM = address("TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA");
const UPGRADEABLE_LOADER = address("BPFLoaderUpgradeab1e11111111111111111111111");

/** Each key's `writable` in jsonParsed, once the v0 header marks every unsigned key writable. */
async function writableByKey(instructions: readonly Instruction[]): Promise<Record<string, boolean>> {
  const payer = await generateKeyPairSigner();
  const blockhash = getBase58Decoder().decode(new Uint8Array(32).fill(7)) as Blockhash;
  const signed = await signInstructions(payer, instructions, { blockhash, lastValidBlockHeight: 100n });
  const bytes = Uint8Array.from(Buffer.from(signed.base64, "base64"));
  const signatures = bytes[0]!;
  // signature count, signatures, the v0 prefix, then the header: numReadonlyUnsignedAccounts is its third byte
  bytes[1 + 64 * signatures + 1 + 2] = 0;
  const parsed = renderTransaction(
    parseWireTransaction(bytes),
    { writable: [], readonly: [] },
    { encoding: "jsonParsed", parsers: instructionParsers(ABAS_ATTESTATION_PROGRAM_ADDRESS) },
  ) as {
    message: { accountKeys: { pubkey: string; writable: boolean }[] };
  };
  return Object.fromEntries(parsed.message.accountKeys.map(({ pubkey, writable }) => [pubkey, writable]));
}

test("a sysvar and a called builtin program marked writable show read-only; an ordinary account stays writable", async () => {
  const source = await generateKeyPairSigner();
  const recipient = await generateKeyPairSigner();
  const transfer = getTransferSolInstruction({ source, destination: recipient.address, amount: 1n });
  const withRent: Instruction = {
    ...transfer,
    accounts: [...transfer.accounts, { address: RENT_SYSVAR, role: AccountRole.READONLY }],
  };
  const writable = await writableByKey([withRent]);
  assert.equal(writable[recipient.address], true);
  assert.equal(writable[RENT_SYSVAR], false);
  assert.equal(writable[SYSTEM_PROGRAM], false);
});

test("a called program marked writable shows writable only when the upgradeable loader is among the keys", async () => {
  const account = await generateKeyPairSigner();
  const call = (extra: Instruction["accounts"] = []): Instruction => ({
    programAddress: TOKEN_PROGRAM,
    accounts: [{ address: account.address, role: AccountRole.WRITABLE }, ...(extra ?? [])],
    data: new Uint8Array([9]),
  });
  assert.equal((await writableByKey([call()]))[TOKEN_PROGRAM], false);
  const withLoader = await writableByKey([
    call([{ address: UPGRADEABLE_LOADER, role: AccountRole.READONLY }]),
  ]);
  assert.equal(withLoader[TOKEN_PROGRAM], true);
  assert.equal(withLoader[UPGRADEABLE_LOADER], false);
});
