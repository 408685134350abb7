import { address } from "@solana/kit";

/** The Ed25519 precompile that verifies the agent's signature in the same transaction. */
export const ED25519_PROGRAM_ADDRESS = address("Ed25519SigVerify111111111111111111111111111");
/** The sysvar through which `attest` and `attest_batch` read the instruction before their own. */
export const INSTRUCTIONS_SYSVAR_ADDRESS = address("Sysvar1nstructions1111111111111111111111111");
export const SYSTEM_PROGRAM_ADDRESS = address("11111111111111111111111111111111");
/** The loader that deploys and upgrades the program; `initialize` reads its ProgramData account. */
export const BPF_LOADER_UPGRADEABLE_ADDRESS = address("BPFLoaderUpgradeab1e11111111111111111111111");

/** The first byte of the instruction data. */
export const InstructionDiscriminator = {
  Initialize: 0,
  RegisterAgent: 1,
  UpdateAgent: 2,
  Attest: 3,
  AttestBatch: 4,
  PublishBatchLeaves: 5,
} as const;
export type InstructionDiscriminator =
  (typeof InstructionDiscriminator)[keyof typeof InstructionDiscriminator];

/** The first byte of each account the program owns (SAS's discriminators for the SAS layouts). */
export const AccountDiscriminator = {
  Credential: 0,
  Schema: 1,
  Attestation: 2,
  Agent: 16,
} as const;
export type AccountDiscriminator = (typeof AccountDiscriminator)[keyof typeof AccountDiscriminator];

/** PDA seed prefixes. */
export const CREDENTIAL_SEED = "credential";
export const SCHEMA_SEED = "schema";
export const AGENT_SEED = "agent";
export const ATTESTATION_SEED = "attestation";
export const BATCH_SEED = "batch";

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
export const LEAF_DATA_SIZE = 34;

/** Domain-separation prefixes of the Merkle tree (RFC 6962). */
export const MERKLE_LEAF_PREFIX = 0x00;
export const MERKLE_NODE_PREFIX = 0x01;

export const AGENT_LAYOUT_VERSION = 1;
export const AGENT_ACCOUNT_SIZE = 128;

/** The Credential's fixed name: the account is 45 bytes with it and no authorized signers. */
export const CREDENTIAL_NAME = "ABAS";
export const CREDENTIAL_ACCOUNT_SIZE = 45;

export const ATTESTATION_DATA_SIZE = 158;
export const ATTESTATION_ACCOUNT_SIZE = 331;

/** Bytes of a SAS Attestation account around its data: 1 + 32 + 32 + 32 + 4 + 32 + 8 + 32. */
export const ATTESTATION_ENVELOPE_SIZE = 173;
/** Subtree roots a pending batch keeps (`leaf count < 128`): the Merkle frontier, 7 × 32 bytes. */
export const MERKLE_FRONTIER_SLOTS = 7;
export const MERKLE_FRONTIER_SIZE = MERKLE_FRONTIER_SLOTS * HASH_SIZE;
/** Bytes of BehaviorBatch data besides the frontier. */
export const BATCH_DATA_FIXED_SIZE = 163;
/** A batch while leaves are pending: the fixed fields and the frontier. */
export const BATCH_PENDING_ACCOUNT_SIZE =
  ATTESTATION_ENVELOPE_SIZE + BATCH_DATA_FIXED_SIZE + MERKLE_FRONTIER_SIZE;
/** A batch once every leaf is published: the frontier is gone and the account has shrunk. */
export const BATCH_COMPLETE_ACCOUNT_SIZE = ATTESTATION_ENVELOPE_SIZE + BATCH_DATA_FIXED_SIZE;

/** Instruction data sizes; `publish_batch_leaves` is 3 bytes plus 34 per leaf. */
export const INITIALIZE_DATA_SIZE = 5;
export const REGISTER_AGENT_DATA_SIZE = 3;
export const UPDATE_AGENT_DATA_SIZE = 3;
export const ATTEST_DATA_SIZE = 36;
export const ATTEST_BATCH_DATA_SIZE = 36;
export const PUBLISH_BATCH_LEAVES_HEADER_SIZE = 3;
