import assert from "node:assert/strict";
import { createPublicKey, verify, webcrypto } from "node:crypto";
import { describe, it } from "node:test";

import {
  ABAS_SDK__INTEGER_OUT_OF_RANGE,
  ABAS_SDK__INVALID_BYTE_LENGTH,
  ABAS_SDK__INVALID_KEY_PAIR,
} from "@abas/errors";
import { generateKeyPair, getAddressFromPublicKey } from "@solana/kit";

import { ActionType } from "../action-types.js";
import { ED25519_PROGRAM_ADDRESS } from "../constants.js";
import {
  buildEd25519VerifyInstruction,
  encodeEd25519InstructionData,
  signMessageWithKeyPair,
} from "../ed25519-instruction.js";
import { buildAttestMessage } from "../messages.js";
import { assertRejectsAbasError, assertThrowsAbasError } from "./assert-abas-error.js";
import { addressBytes, AGENT, PROGRAM_ID, SIGNATURE, STORED_HASH } from "./fixtures.js";

/** The offsets record as the precompile reads it: seven little-endian u16 after two header bytes. */
function readOffsetsRecord(data: Uint8Array) {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u16 = (offset: number): number => view.getUint16(offset, true);
  return {
    numSignatures: data[0],
    padding: data[1],
    signatureOffset: u16(2),
    signatureInstructionIndex: u16(4),
    publicKeyOffset: u16(6),
    publicKeyInstructionIndex: u16(8),
    messageDataOffset: u16(10),
    messageDataSize: u16(12),
    messageInstructionIndex: u16(14),
  };
}

const agentKeyPair = await generateKeyPair();
const agent = await getAddressFromPublicKey(agentKeyPair.publicKey);
const message = buildAttestMessage({
  programId: PROGRAM_ID,
  agent,
  actionType: ActionType.ToolCall,
  privacyMode: false,
  storedHash: STORED_HASH,
});

describe("Ed25519 verify instruction", () => {
  it("targets the Ed25519 precompile and needs no accounts", async () => {
    const signature = await signMessageWithKeyPair(agentKeyPair, message);
    const instruction = buildEd25519VerifyInstruction({ publicKey: agent, message, signature });
    assert.equal(instruction.programAddress, ED25519_PROGRAM_ADDRESS);
    assert.equal(instruction.programAddress, "Ed25519SigVerify111111111111111111111111111");
    assert.equal("accounts" in instruction, false);
  });

  it("uses the standard single-signature layout: header, offsets, key, signature, message", () => {
    // Given a known key, signature and message
    // When the data is encoded
    const data = encodeEd25519InstructionData({ publicKey: AGENT, signature: SIGNATURE, message });
    // Then the offsets point at key (16), signature (48) and message (112) in this instruction (0xFFFF)
    assert.deepEqual(readOffsetsRecord(data), {
      numSignatures: 1,
      padding: 0,
      signatureOffset: 48,
      signatureInstructionIndex: 0xffff,
      publicKeyOffset: 16,
      publicKeyInstructionIndex: 0xffff,
      messageDataOffset: 112,
      messageDataSize: 112,
      messageInstructionIndex: 0xffff,
    });
    assert.deepEqual(
      data.subarray(0, 16),
      Uint8Array.of(1, 0, 48, 0, 0xff, 0xff, 16, 0, 0xff, 0xff, 112, 0, 112, 0, 0xff, 0xff),
    );
    assert.deepEqual(data.subarray(16, 48), addressBytes(AGENT));
    assert.deepEqual(data.subarray(48, 112), SIGNATURE);
    assert.deepEqual(data.subarray(112), message);
    assert.equal(data.length, 112 + message.length);
  });

  it("carries a signature made with kit that verifies, with node:crypto, at the encoded offsets", async () => {
    // Given the agent's signature of its attest message, made through kit
    const signature = await signMessageWithKeyPair(agentKeyPair, message);
    const { data } = buildEd25519VerifyInstruction({ publicKey: agent, message, signature });
    // When the key, signature and message are read back where the offsets say, as the precompile does
    const offsets = readOffsetsRecord(data);
    const publicKey = data.subarray(offsets.publicKeyOffset, offsets.publicKeyOffset + 32);
    const signed = data.subarray(
      offsets.messageDataOffset,
      offsets.messageDataOffset + offsets.messageDataSize,
    );
    const signatureBytes = data.subarray(offsets.signatureOffset, offsets.signatureOffset + 64);
    // Then an independent Ed25519 implementation accepts them, and they are the agent's key and message
    const key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(publicKey).toString("base64url") },
      format: "jwk",
    });
    assert.ok(verify(null, signed, key, signatureBytes));
    assert.deepEqual(publicKey, addressBytes(agent));
    assert.deepEqual(signed, message);
  });

  it("lets tests override every header field, to craft instructions the program must reject", () => {
    const data = encodeEd25519InstructionData({
      publicKey: AGENT,
      signature: SIGNATURE,
      message,
      overrides: {
        numSignatures: 2,
        padding: 9,
        signatureOffset: 1,
        signatureInstructionIndex: 0,
        publicKeyOffset: 2,
        publicKeyInstructionIndex: 1,
        messageDataOffset: 3,
        messageDataSize: 4,
        messageInstructionIndex: 2,
      },
    });
    assert.deepEqual(readOffsetsRecord(data), {
      numSignatures: 2,
      padding: 9,
      signatureOffset: 1,
      signatureInstructionIndex: 0,
      publicKeyOffset: 2,
      publicKeyInstructionIndex: 1,
      messageDataOffset: 3,
      messageDataSize: 4,
      messageInstructionIndex: 2,
    });
    // The key, signature and message stay where the standard layout puts them.
    assert.deepEqual(data.subarray(112), message);
  });

  it("refuses overrides that do not fit their field, and a signature that is not 64 bytes", () => {
    const input = { publicKey: AGENT, signature: SIGNATURE, message };
    assertThrowsAbasError(
      () => encodeEd25519InstructionData({ ...input, overrides: { messageDataOffset: 0x10000 } }),
      ABAS_SDK__INTEGER_OUT_OF_RANGE,
    );
    assertThrowsAbasError(
      () => encodeEd25519InstructionData({ ...input, overrides: { numSignatures: 256 } }),
      ABAS_SDK__INTEGER_OUT_OF_RANGE,
    );
    assertThrowsAbasError(
      () => encodeEd25519InstructionData({ ...input, signature: SIGNATURE.slice(1) }),
      ABAS_SDK__INVALID_BYTE_LENGTH,
    );
  });
});

describe("signMessageWithKeyPair", () => {
  it("signs deterministically with the agent's key", async () => {
    const first = await signMessageWithKeyPair(agentKeyPair, message);
    const second = await signMessageWithKeyPair(agentKeyPair, message);
    assert.equal(first.length, 64);
    assert.deepEqual(first, second);
  });

  it("refuses a key pair that cannot sign with Ed25519", async () => {
    // Given a P-256 key pair and a key pair without a private key
    const ecdsa = (await webcrypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, [
      "sign",
      "verify",
    ])) as webcrypto.CryptoKeyPair;
    const publicOnly = { publicKey: agentKeyPair.publicKey } as unknown as webcrypto.CryptoKeyPair;
    // Then neither is used
    await assertRejectsAbasError(() => signMessageWithKeyPair(ecdsa, message), ABAS_SDK__INVALID_KEY_PAIR);
    await assertRejectsAbasError(
      () => signMessageWithKeyPair(publicOnly, message),
      ABAS_SDK__INVALID_KEY_PAIR,
    );
  });
});
