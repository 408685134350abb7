import { FailedTransactionMetadata, FeatureSet, LiteSVM, TransactionMetadata } from "litesvm";
import { DISABLE_SBPF_V0_V1_V2_DEPLOYMENT_FEATURE } from "../../sbpf-link/sbpf-version.js";
import {
  AccountRole,
  address,
  appendTransactionMessageInstruction,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressEncoder,
  getProgramDerivedAddress,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";

/** The InstructionError::Custom code a failed transaction reports, if that is how it failed. */
export function customErrorCode(result: TransactionMetadata | FailedTransactionMetadata): number | undefined {
  if (!(result instanceof FailedTransactionMetadata)) return undefined;
  const error = result.err();
  if (typeof error !== "object" || !("err" in error)) return undefined;
  const instructionError = error.err();
  return typeof instructionError === "object" && "code" in instructionError
    ? instructionError.code
    : undefined;
}

export function logsOf(result: TransactionMetadata | FailedTransactionMetadata): string[] {
  return result instanceof FailedTransactionMetadata ? result.meta().logs() : result.logs();
}

export const BPF_LOADER_UPGRADEABLE = address("BPFLoaderUpgradeab1e11111111111111111111111");
const SYSTEM_PROGRAM = address("11111111111111111111111111111111");
const RENT_SYSVAR = address("SysvarRent111111111111111111111111111111111");
const CLOCK_SYSVAR = address("SysvarC1ock11111111111111111111111111111111");

export interface FundedSvm {
  svm: LiteSVM;
  payer: KeyPairSigner;
}

/**
 * Every feature litesvm knows, SIMD-0500 (no more v0/v1/v2 deployments) among them: the runtime
 * an ABAS deployment must survive once SIMD-0500 is activated on the clusters.
 */
export function featuresWithSimd0500(): FeatureSet {
  const features = FeatureSet.allEnabled();
  const simd0500 = Uint8Array.from(
    getAddressEncoder().encode(address(DISABLE_SBPF_V0_V1_V2_DEPLOYMENT_FEATURE)),
  );
  if (!features.isActive(simd0500)) throw new Error("litesvm's feature set lacks SIMD-0500");
  return features;
}

export async function createFundedSvm({ simd0500 = false }: { simd0500?: boolean } = {}): Promise<FundedSvm> {
  const svm = simd0500
    ? new LiteSVM().withFeatureSet(featuresWithSimd0500()).withBuiltins().withSysvars().withPrecompiles()
    : new LiteSVM();
  const payer = await generateKeyPairSigner();
  svm.airdrop(payer.address, lamports(100_000_000_000n));
  return { svm, payer };
}

/** Sends one instruction, signed by the payer (the only signer these tests need). */
export async function sendInstruction(
  { svm, payer }: FundedSvm,
  instruction: Instruction,
): Promise<TransactionMetadata | FailedTransactionMetadata> {
  const transaction = await pipe(
    createTransactionMessage({ version: 0 }),
    (message) => setTransactionMessageFeePayerSigner(payer, message),
    (message) => svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
    (message) => appendTransactionMessageInstruction(instruction, message),
    (message) => signTransactionMessageWithSigners(message),
  );
  const result = svm.sendTransaction(transaction);
  svm.expireBlockhash();
  return result;
}

export async function invokeProgram(
  funded: FundedSvm,
  programAddress: Address,
  data: Uint8Array,
): Promise<TransactionMetadata | FailedTransactionMetadata> {
  return sendInstruction(funded, { programAddress, accounts: [], data });
}

function u32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, true);
  return bytes;
}

function u64(value: number | bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt(value), true);
  return bytes;
}

const concat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(parts.flatMap((part) => [...part]));

function expectSuccess(result: TransactionMetadata | FailedTransactionMetadata, step: string): void {
  if (result instanceof FailedTransactionMetadata) {
    throw new Error(`${step} failed: ${result.toString()}\n${result.meta().logs().join("\n")}`);
  }
}

// Sizes of the bincode-serialized UpgradeableLoaderState variants.
const BUFFER_METADATA_SIZE = 37;
const PROGRAM_ACCOUNT_SIZE = 36;
const WRITE_CHUNK_SIZE = 900;

/**
 * Deploys like `solana program deploy`: InitializeBuffer, Write in chunks, DeployWithMaxDataLen.
 * Deployment loads the ELF with the strict checks a cluster applies (reject_broken_elfs), unlike
 * addProgram. The two accounts the system program would create are set up directly.
 */
export async function deployWithUpgradeableLoader(funded: FundedSvm, program: Uint8Array): Promise<Address> {
  const { svm, payer } = funded;
  const buffer = (await generateKeyPairSigner()).address;
  const programId = (await generateKeyPairSigner()).address;
  const bufferSize = BUFFER_METADATA_SIZE + program.length;
  for (const [account, space] of [
    [buffer, bufferSize],
    [programId, PROGRAM_ACCOUNT_SIZE],
  ] as const) {
    svm.setAccount({
      address: account,
      data: new Uint8Array(space),
      executable: false,
      lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(space))),
      programAddress: BPF_LOADER_UPGRADEABLE,
      space: BigInt(space),
    });
  }

  expectSuccess(
    await sendInstruction(funded, {
      programAddress: BPF_LOADER_UPGRADEABLE,
      accounts: [
        { address: buffer, role: AccountRole.WRITABLE },
        { address: payer.address, role: AccountRole.READONLY },
      ],
      data: u32(0),
    }),
    "InitializeBuffer",
  );
  for (let offset = 0; offset < program.length; offset += WRITE_CHUNK_SIZE) {
    const chunk = program.subarray(offset, offset + WRITE_CHUNK_SIZE);
    expectSuccess(
      await sendInstruction(funded, {
        programAddress: BPF_LOADER_UPGRADEABLE,
        accounts: [
          { address: buffer, role: AccountRole.WRITABLE },
          { address: payer.address, role: AccountRole.READONLY_SIGNER },
        ],
        data: concat(u32(1), u32(offset), u64(chunk.length), chunk),
      }),
      `Write at ${offset}`,
    );
  }
  const [programData] = await getProgramDerivedAddress({
    programAddress: BPF_LOADER_UPGRADEABLE,
    seeds: [getAddressEncoder().encode(programId)],
  });
  expectSuccess(
    await sendInstruction(funded, {
      programAddress: BPF_LOADER_UPGRADEABLE,
      accounts: [
        { address: payer.address, role: AccountRole.WRITABLE_SIGNER },
        { address: programData, role: AccountRole.WRITABLE },
        { address: programId, role: AccountRole.WRITABLE },
        { address: buffer, role: AccountRole.WRITABLE },
        { address: RENT_SYSVAR, role: AccountRole.READONLY },
        { address: CLOCK_SYSVAR, role: AccountRole.READONLY },
        { address: SYSTEM_PROGRAM, role: AccountRole.READONLY },
        { address: payer.address, role: AccountRole.READONLY_SIGNER },
      ],
      data: concat(u32(2), u64(program.length * 2)),
    }),
    "DeployWithMaxDataLen",
  );
  // A deployed program becomes visible to transactions from the next slot on.
  svm.warpToSlot(svm.getClock().slot + 1n);
  return programId;
}
