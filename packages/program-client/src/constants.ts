import { address } from "@solana/kit";

import {
  AGENT_DISCRIMINATOR,
  ATTESTATION_DISCRIMINATOR,
  CREDENTIAL_DISCRIMINATOR,
  getAgentEncoder,
  getAttestationEncoder,
  getBehaviorAttestationDataEncoder,
  getBehaviorBatchDataEncoder,
  getCredentialSize,
  getLeafDataEncoder,
  getPublishBatchLeavesInstructionDataEncoder,
  SCHEMA_DISCRIMINATOR,
} from "./generated/index.js";

/** The Ed25519 precompile that verifies the agent's signature in the same transaction. */
export const ED25519_PROGRAM_ADDRESS = address("Ed25519SigVerify111111111111111111111111111");
/** The sysvar through which `attest` and `attest_batch` read the instruction before their own. */
export const INSTRUCTIONS_SYSVAR_ADDRESS = address("Sysvar1nstructions1111111111111111111111111");
export const SYSTEM_PROGRAM_ADDRESS = address("11111111111111111111111111111111");
/** The loader that deploys and upgrades the program; `initialize` reads its ProgramData account. */
export const BPF_LOADER_UPGRADEABLE_ADDRESS = address("BPFLoaderUpgradeab1e11111111111111111111111");

/** The first byte of each account the program owns (SAS's discriminators for the SAS layouts). */
export const AccountDiscriminator = {
  Credential: CREDENTIAL_DISCRIMINATOR,
  Schema: SCHEMA_DISCRIMINATOR,
  Attestation: ATTESTATION_DISCRIMINATOR,
  Agent: AGENT_DISCRIMINATOR,
} as const;
export type AccountDiscriminator = (typeof AccountDiscriminator)[keyof typeof AccountDiscriminator];

/** Domain tags of the signed messages and of the privacy commitment: ASCII, no terminator. */
export const ATTEST_MESSAGE_TAG = "abas:attest:v1";
export const BATCH_MESSAGE_TAG = "abas:batch:v1";
export const COMMITMENT_TAG = "abas:commit:v1";

export const ATTEST_MESSAGE_SIZE = 112;
export const BATCH_MESSAGE_SIZE = 111;

export const HASH_SIZE = 32;
export const ADDRESS_SIZE = 32;
export const SIGNATURE_SIZE = 64;
export const SALT_SIZE = 32;

export const MAX_BATCH_ITEMS = 100;
/** action_type (u8) ‖ privacy_mode (u8) ‖ stored_hash (32). */
export const LEAF_DATA_SIZE = getLeafDataEncoder().fixedSize;

/** Domain-separation prefixes of the Merkle tree (RFC 6962). */
export const MERKLE_LEAF_PREFIX = 0x00;
export const MERKLE_NODE_PREFIX = 0x01;

export const AGENT_LAYOUT_VERSION = 1;
/** The size of the Agent layout (the IDL states it too, `getAgentSize`; a test keeps them equal). */
export const AGENT_ACCOUNT_SIZE = getAgentEncoder().fixedSize;

/** The Credential's fixed name: the account is 45 bytes with it and no authorized signers. */
export const CREDENTIAL_NAME = "ABAS";
export const CREDENTIAL_ACCOUNT_SIZE = getCredentialSize();

export const ATTESTATION_DATA_SIZE = getBehaviorAttestationDataEncoder().fixedSize;
/** The size of the single attestation layout (the IDL states it too, `getAttestationSize`). */
export const ATTESTATION_ACCOUNT_SIZE = getAttestationEncoder().fixedSize;

/** Bytes of a SAS Attestation account around its data (and its u32 length). */
export const ATTESTATION_ENVELOPE_SIZE = ATTESTATION_ACCOUNT_SIZE - ATTESTATION_DATA_SIZE;
/** Subtree roots a pending batch keeps (`leaf count < 128`): the Merkle frontier, 7 × 32 bytes. */
export const MERKLE_FRONTIER_SLOTS = 7;
export const MERKLE_FRONTIER_SIZE = MERKLE_FRONTIER_SLOTS * HASH_SIZE;
/**
 * Bytes of BehaviorBatch data besides the frontier (and with the frontier's u32 length): the size of
 * its encoding with an empty frontier. The generated encoder fixes every other field's size, so the
 * values here are placeholders; a field added to the IDL makes this object fail the type check.
 */
export const BATCH_DATA_FIXED_SIZE = getBehaviorBatchDataEncoder().encode({
  merkleRoot: new Uint8Array(),
  itemCount: 0,
  actionTypes: 0,
  agentSignature: new Uint8Array(),
  operator: SYSTEM_PROGRAM_ADDRESS,
  timestamp: 0,
  slot: 0,
  leavesPublished: 0,
  frontier: new Uint8Array(),
}).length;
/** A batch while leaves are pending: the fixed fields and the frontier. */
export const BATCH_PENDING_ACCOUNT_SIZE =
  ATTESTATION_ENVELOPE_SIZE + BATCH_DATA_FIXED_SIZE + MERKLE_FRONTIER_SIZE;
/** A batch once every leaf is published: the frontier is gone and the account has shrunk. */
export const BATCH_COMPLETE_ACCOUNT_SIZE = ATTESTATION_ENVELOPE_SIZE + BATCH_DATA_FIXED_SIZE;

/** `publish_batch_leaves` data: `[5, start_index, leaf_count]`, then `LEAF_DATA_SIZE` bytes per leaf. */
export const PUBLISH_BATCH_LEAVES_HEADER_SIZE = getPublishBatchLeavesInstructionDataEncoder().encode({
  startIndex: 0,
  leaves: [],
}).length;
