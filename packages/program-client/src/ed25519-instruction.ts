/**
 * The Ed25519 precompile instruction that verifies the agent's signature right before `attest` or
 * `attest_batch`, in the precompile's standard single-signature layout:
 *
 *   u8 num_signatures (1) ‖ u8 padding ‖ 7 × u16 offsets record ‖ public key (32) ‖ signature (64) ‖ message
 *
 * The offsets record: signature_offset, signature_instruction_index, public_key_offset,
 * public_key_instruction_index, message_data_offset, message_data_size, message_instruction_index.
 * The instruction indexes are 0xFFFF ("this instruction"), the only value besides its own index
 * that the program accepts.
 */
import type { webcrypto } from "node:crypto";

import { ABAS_SDK__INVALID_KEY_PAIR, AbasError } from "@abas/errors";
import {
  getAddressEncoder,
  signBytes,
  type Address,
  type Instruction,
  type InstructionWithData,
  type ReadonlyUint8Array,
  type SignatureBytes,
} from "@solana/kit";

import { ED25519_PROGRAM_ADDRESS, SIGNATURE_SIZE } from "./constants.js";
import { assertByteLength, assertU16, assertU8 } from "./validation.js";

export const ED25519_OFFSETS_RECORD_START = 2;
export const ED25519_DATA_START = 16;
export const ED25519_PUBLIC_KEY_OFFSET = ED25519_DATA_START;
export const ED25519_SIGNATURE_OFFSET = ED25519_PUBLIC_KEY_OFFSET + 32;
export const ED25519_MESSAGE_OFFSET = ED25519_SIGNATURE_OFFSET + SIGNATURE_SIZE;
export const ED25519_THIS_INSTRUCTION_INDEX = 0xffff;

/** Header fields to replace, so tests can craft the malicious instructions the program must reject. */
export type Ed25519InstructionOverrides = Partial<
  Readonly<{
    numSignatures: number;
    padding: number;
    signatureOffset: number;
    signatureInstructionIndex: number;
    publicKeyOffset: number;
    publicKeyInstructionIndex: number;
    messageDataOffset: number;
    messageDataSize: number;
    messageInstructionIndex: number;
  }>
>;

export type Ed25519InstructionInput = Readonly<{
  publicKey: Address;
  signature: ReadonlyUint8Array;
  message: ReadonlyUint8Array;
}>;

export function encodeEd25519InstructionData({
  publicKey,
  signature,
  message,
  overrides = {},
}: Ed25519InstructionInput & { overrides?: Ed25519InstructionOverrides }): Uint8Array {
  assertByteLength(signature, SIGNATURE_SIZE, "signature");
  const header = {
    numSignatures: 1,
    padding: 0,
    signatureOffset: ED25519_SIGNATURE_OFFSET,
    signatureInstructionIndex: ED25519_THIS_INSTRUCTION_INDEX,
    publicKeyOffset: ED25519_PUBLIC_KEY_OFFSET,
    publicKeyInstructionIndex: ED25519_THIS_INSTRUCTION_INDEX,
    messageDataOffset: ED25519_MESSAGE_OFFSET,
    messageDataSize: message.length,
    messageInstructionIndex: ED25519_THIS_INSTRUCTION_INDEX,
    ...overrides,
  };
  assertU8(header.numSignatures, "numSignatures");
  assertU8(header.padding, "padding");
  const offsetsRecord = [
    ["signatureOffset", header.signatureOffset],
    ["signatureInstructionIndex", header.signatureInstructionIndex],
    ["publicKeyOffset", header.publicKeyOffset],
    ["publicKeyInstructionIndex", header.publicKeyInstructionIndex],
    ["messageDataOffset", header.messageDataOffset],
    ["messageDataSize", header.messageDataSize],
    ["messageInstructionIndex", header.messageInstructionIndex],
  ] as const;
  offsetsRecord.forEach(([field, value]) => assertU16(value, field));

  const data = new Uint8Array(ED25519_MESSAGE_OFFSET + message.length);
  const view = new DataView(data.buffer);
  data[0] = header.numSignatures;
  data[1] = header.padding;
  offsetsRecord.forEach(([, value], i) => view.setUint16(ED25519_OFFSETS_RECORD_START + 2 * i, value, true));
  data.set(getAddressEncoder().encode(publicKey), ED25519_PUBLIC_KEY_OFFSET);
  data.set(signature, ED25519_SIGNATURE_OFFSET);
  data.set(message, ED25519_MESSAGE_OFFSET);
  return data;
}

export type Ed25519VerifyInstruction = Instruction<typeof ED25519_PROGRAM_ADDRESS> &
  InstructionWithData<Uint8Array>;

/** The precompile instruction that verifies `signature` of `message` by `publicKey`. It takes no accounts. */
export function buildEd25519VerifyInstruction(input: Ed25519InstructionInput): Ed25519VerifyInstruction {
  return { programAddress: ED25519_PROGRAM_ADDRESS, data: encodeEd25519InstructionData(input) };
}

// The Web Crypto types come from node:crypto: the project's lib settings do not include the DOM.
type CryptoKeyPair = webcrypto.CryptoKeyPair;

function assertSigningKeyPair(keyPair: CryptoKeyPair): void {
  const privateKey: webcrypto.CryptoKey | undefined = keyPair?.privateKey;
  if (!privateKey || privateKey.type !== "private") {
    throw new AbasError(ABAS_SDK__INVALID_KEY_PAIR, { reason: "it has no private key" });
  }
  if (privateKey.algorithm.name !== "Ed25519") {
    throw new AbasError(ABAS_SDK__INVALID_KEY_PAIR, {
      reason: `its key is ${privateKey.algorithm.name}, not Ed25519`,
    });
  }
  if (!privateKey.usages.includes("sign")) {
    throw new AbasError(ABAS_SDK__INVALID_KEY_PAIR, { reason: "its private key may not sign" });
  }
}

/** The agent's Ed25519 signature of `message` (an attest or batch message). */
export async function signMessageWithKeyPair(
  keyPair: CryptoKeyPair,
  message: ReadonlyUint8Array,
): Promise<SignatureBytes> {
  assertSigningKeyPair(keyPair);
  return await signBytes(keyPair.privateKey, message);
}
