/**
 * The genesis faucet: airdrops are ordinary System Program transfers signed by the faucet key,
 * so they land, cost a fee and appear in history like any other transaction. Built and signed
 * synchronously, so that choosing a blockhash and executing happen without interleaving.
 */
import { sign, type KeyObject } from "node:crypto";

import type { Address } from "@solana/kit";

import { concatBytes, fromBase58 } from "../encoding.js";

const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const TRANSFER = 2;

export class Faucet {
  constructor(
    readonly address: Address,
    private readonly privateKey: KeyObject,
  ) {}

  /** A signed legacy transaction moving `lamports` from the faucet to `recipient`. */
  buildTransfer(recipient: Address, lamports: bigint, blockhash: string): Uint8Array {
    const toSelf = recipient === this.address;
    const keys = toSelf ? [this.address, SYSTEM_PROGRAM] : [this.address, recipient, SYSTEM_PROGRAM];
    const data = new Uint8Array(12);
    const view = new DataView(data.buffer);
    view.setUint32(0, TRANSFER, true);
    view.setBigUint64(4, lamports, true);
    const message = concatBytes(
      // header: one signer (the faucet), no read-only signers, one read-only account (the System Program)
      Uint8Array.of(1, 0, 1, keys.length),
      ...keys.map(fromBase58),
      fromBase58(blockhash),
      Uint8Array.of(1, keys.length - 1, 2, 0, toSelf ? 0 : 1, data.length),
      data,
    );
    const signature = new Uint8Array(sign(null, message, this.privateKey));
    return concatBytes(Uint8Array.of(1), signature, message);
  }
}
