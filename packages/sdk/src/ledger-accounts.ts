import { getBase64Encoder, type Address, type Commitment, type Rpc, type SolanaRpcApi } from "@solana/kit";

import { sendRpcRequest } from "./rpc-request.js";

/** An account as the ledger returns it, its data decoded from base64. */
export type LedgerAccount = Readonly<{
  address: Address;
  owner: Address;
  lamports: bigint;
  data: Uint8Array;
}>;

/** The account at `address`, or null when the ledger has none there. */
export async function fetchLedgerAccount(
  rpc: Rpc<SolanaRpcApi>,
  address: Address,
  commitment: Commitment,
): Promise<LedgerAccount | null> {
  const { value } = await sendRpcRequest(
    "getAccountInfo",
    rpc.getAccountInfo(address, { encoding: "base64", commitment }),
  );
  if (value === null) return null;
  const [base64Data] = value.data;
  return {
    address,
    owner: value.owner,
    lamports: value.lamports,
    data: Uint8Array.from(getBase64Encoder().encode(base64Data)),
  };
}
