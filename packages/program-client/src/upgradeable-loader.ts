/**
 * Deploying a program the way `solana program deploy` does, through the BPF Upgradeable Loader's
 * own instructions: create a buffer account, InitializeBuffer, Write in chunks, then create the
 * program account and DeployWithMaxDataLen. Upgrading writes a new buffer the same way, then
 * Upgrade replaces the program's bytes with it. Unlike a test VM's direct program load, both run
 * the loader's strict ELF checks, as a real cluster does.
 */
import { getCreateAccountInstruction, SYSTEM_PROGRAM_ADDRESS } from "@solana-program/system";
import {
  AccountRole,
  address,
  type AccountMeta,
  type AccountSignerMeta,
  type Address,
  type Instruction,
  type TransactionSigner,
} from "@solana/kit";

import { deriveProgramDataAddress } from "./addresses.js";
import { BPF_LOADER_UPGRADEABLE_ADDRESS } from "./constants.js";

const RENT_SYSVAR_ADDRESS = address("SysvarRent111111111111111111111111111111111");
const CLOCK_SYSVAR_ADDRESS = address("SysvarC1ock11111111111111111111111111111111");

/** UpgradeableLoaderState::Buffer: u32 tag + Option<Pubkey> authority. */
export const BUFFER_METADATA_SIZE = 37;
/** UpgradeableLoaderState::Program: u32 tag + programdata address. */
export const PROGRAM_ACCOUNT_SIZE = 36;
/** Program bytes written per Write instruction; keeps each transaction under 1,232 bytes. */
export const WRITE_CHUNK_SIZE = 900;

const INITIALIZE_BUFFER = 0;
const WRITE = 1;
const DEPLOY_WITH_MAX_DATA_LEN = 2;
const UPGRADE = 3;

export type LoaderInstruction = Instruction & {
  readonly accounts: readonly (AccountMeta | AccountSignerMeta)[];
};

const signerMeta = (signer: TransactionSigner, writable: boolean): AccountSignerMeta => ({
  address: signer.address,
  role: writable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER,
  signer,
});

function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

function u64(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return bytes;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export function getInitializeBufferInstruction(input: {
  buffer: Address;
  authority: Address;
}): LoaderInstruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      { address: input.buffer, role: AccountRole.WRITABLE },
      { address: input.authority, role: AccountRole.READONLY },
    ],
    data: u32(INITIALIZE_BUFFER),
  };
}

export function getWriteInstruction(input: {
  buffer: Address;
  authority: TransactionSigner;
  offset: number;
  bytes: Uint8Array;
}): LoaderInstruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [{ address: input.buffer, role: AccountRole.WRITABLE }, signerMeta(input.authority, false)],
    // bincode: tag, offset u32, Vec<u8> as u64 length + bytes.
    data: concat(u32(WRITE), u32(input.offset), u64(BigInt(input.bytes.length)), input.bytes),
  };
}

export function getDeployWithMaxDataLenInstruction(input: {
  payer: TransactionSigner;
  programData: Address;
  program: Address;
  buffer: Address;
  authority: TransactionSigner;
  maxDataLen: bigint;
}): LoaderInstruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      signerMeta(input.payer, true),
      { address: input.programData, role: AccountRole.WRITABLE },
      { address: input.program, role: AccountRole.WRITABLE },
      { address: input.buffer, role: AccountRole.WRITABLE },
      { address: RENT_SYSVAR_ADDRESS, role: AccountRole.READONLY },
      { address: CLOCK_SYSVAR_ADDRESS, role: AccountRole.READONLY },
      { address: SYSTEM_PROGRAM_ADDRESS, role: AccountRole.READONLY },
      signerMeta(input.authority, false),
    ],
    data: concat(u32(DEPLOY_WITH_MAX_DATA_LEN), u64(input.maxDataLen)),
  };
}

/** Replaces the program's bytes with the buffer's; the buffer's lamports go to `spill`. */
export function getUpgradeInstruction(input: {
  programData: Address;
  program: Address;
  buffer: Address;
  spill: Address;
  authority: TransactionSigner;
}): LoaderInstruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      { address: input.programData, role: AccountRole.WRITABLE },
      { address: input.program, role: AccountRole.WRITABLE },
      { address: input.buffer, role: AccountRole.WRITABLE },
      { address: input.spill, role: AccountRole.WRITABLE },
      { address: RENT_SYSVAR_ADDRESS, role: AccountRole.READONLY },
      { address: CLOCK_SYSVAR_ADDRESS, role: AccountRole.READONLY },
      signerMeta(input.authority, false),
    ],
    data: u32(UPGRADE),
  };
}

export interface UpgradeableDeployPlan {
  readonly programData: Address;
  /** Each entry is one transaction's instructions, to be sent in order, each after the last landed. */
  readonly transactions: readonly (readonly Instruction[])[];
}

interface BufferInput {
  payer: TransactionSigner;
  buffer: TransactionSigner;
  programBytes: Uint8Array;
  rentFor: (size: number) => bigint;
}

/** Create and initialize the buffer (`payer` its authority), then one Write per chunk. */
function planBufferWrites({ payer, buffer, programBytes, rentFor }: BufferInput): Instruction[][] {
  const createBuffer = [
    getCreateAccountInstruction({
      payer,
      newAccount: buffer,
      lamports: rentFor(BUFFER_METADATA_SIZE + programBytes.length),
      space: BUFFER_METADATA_SIZE + programBytes.length,
      programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    }),
    getInitializeBufferInstruction({ buffer: buffer.address, authority: payer.address }),
  ];
  const writes: Instruction[][] = [];
  for (let offset = 0; offset < programBytes.length; offset += WRITE_CHUNK_SIZE) {
    const bytes = programBytes.subarray(offset, offset + WRITE_CHUNK_SIZE);
    writes.push([getWriteInstruction({ buffer: buffer.address, authority: payer, offset, bytes })]);
  }
  return [createBuffer, ...writes];
}

/**
 * The transactions that deploy `programBytes` at `program`'s address, with `payer` as fee payer,
 * buffer authority and upgrade authority. `rentFor(size)` gives the rent-exempt minimum of the
 * cluster the plan is for. A program deployed in slot N is executable from slot N+1.
 */
export async function planUpgradeableDeploy(
  input: BufferInput & {
    program: TransactionSigner;
    /** Room in ProgramData for later upgrades, like `solana program deploy --max-len`; default: the program's size. */
    maxDataLen?: bigint;
  },
): Promise<UpgradeableDeployPlan> {
  const { payer, program, buffer, programBytes, rentFor } = input;
  const { address: programData } = await deriveProgramDataAddress(program.address);
  const deploy = [
    getCreateAccountInstruction({
      payer,
      newAccount: program,
      lamports: rentFor(PROGRAM_ACCOUNT_SIZE),
      space: PROGRAM_ACCOUNT_SIZE,
      programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    }),
    getDeployWithMaxDataLenInstruction({
      payer,
      programData,
      program: program.address,
      buffer: buffer.address,
      authority: payer,
      maxDataLen: input.maxDataLen ?? BigInt(programBytes.length),
    }),
  ];
  return { programData, transactions: [...planBufferWrites(input), deploy] };
}

/**
 * The transactions that upgrade the program at `program` to `programBytes`, `payer` being fee
 * payer, buffer authority and the program's upgrade authority. The buffer's rent returns to `payer`.
 */
export async function planUpgradeableUpgrade(
  input: BufferInput & { program: Address },
): Promise<UpgradeableDeployPlan> {
  const { payer, program, buffer } = input;
  const { address: programData } = await deriveProgramDataAddress(program);
  const upgrade = getUpgradeInstruction({
    programData,
    program,
    buffer: buffer.address,
    spill: payer.address,
    authority: payer,
  });
  return { programData, transactions: [...planBufferWrites(input), [upgrade]] };
}
