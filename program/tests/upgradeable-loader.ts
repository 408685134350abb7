/**
 * Deploys and upgrades a program in the test VM through the BPF Upgradeable Loader's own instructions (the
 * plan from @abas/program-client), so the loader's strict ELF checks run as on a real cluster.
 */
import {
  BPF_LOADER_UPGRADEABLE_ADDRESS,
  planUpgradeableDeploy,
  planUpgradeableUpgrade,
  type UpgradeableDeployPlan,
} from "@abas/program-client";
import {
  AccountRole,
  generateKeyPairSigner,
  type Address,
  type Instruction,
  type KeyPairSigner,
} from "@solana/kit";
import type { LiteSVM } from "litesvm";
import { assertSubmitted, submitInstructions } from "./transactions.js";

async function submitPlan(svm: LiteSVM, payer: KeyPairSigner, plan: UpgradeableDeployPlan, what: string) {
  for (const [index, instructions] of plan.transactions.entries()) {
    assertSubmitted(
      await submitInstructions(svm, payer, [...instructions]),
      `${what} transaction ${index + 1} of ${plan.transactions.length}`,
    );
  }
}

export interface UpgradeableDeployment {
  readonly programId: Address;
  readonly programData: Address;
  readonly buffer: Address;
  /** Transactions sent: buffer creation, every Write, and the deployment. */
  readonly transactionCount: number;
  /** The slot the deployment landed in; the program runs from the next slot on. */
  readonly deploySlot: bigint;
}

/**
 * Deploys `programBytes` with `payer` as fee payer, buffer authority and upgrade authority, then
 * warps one slot forward, since a program deployed in slot N is executable from slot N+1.
 */
export async function deployWithUpgradeableLoader(
  svm: LiteSVM,
  payer: KeyPairSigner,
  programBytes: Uint8Array,
  options: { program?: KeyPairSigner; maxDataLen?: bigint } = {},
): Promise<UpgradeableDeployment> {
  const program = options.program ?? (await generateKeyPairSigner());
  const buffer = await generateKeyPairSigner();
  const plan = await planUpgradeableDeploy({
    payer,
    program,
    buffer,
    programBytes,
    rentFor: (size) => svm.minimumBalanceForRentExemption(BigInt(size)),
    maxDataLen: options.maxDataLen,
  });
  await submitPlan(svm, payer, plan, "deploy");
  const deploySlot = svm.getClock().slot;
  svm.warpToSlot(deploySlot + 1n);
  return {
    programId: program.address,
    programData: plan.programData,
    buffer: buffer.address,
    transactionCount: plan.transactions.length,
    deploySlot,
  };
}

/**
 * Upgrades the program at `programId` (upgrade authority `payer`) to `programBytes` through a new
 * buffer and the loader's Upgrade instruction; returns the slot it landed in and warps one slot
 * forward, from which the new bytes run.
 */
export async function upgradeWithUpgradeableLoader(
  svm: LiteSVM,
  payer: KeyPairSigner,
  programId: Address,
  programBytes: Uint8Array,
): Promise<bigint> {
  const plan = await planUpgradeableUpgrade({
    payer,
    program: programId,
    buffer: await generateKeyPairSigner(),
    programBytes,
    rentFor: (size) => svm.minimumBalanceForRentExemption(BigInt(size)),
  });
  await submitPlan(svm, payer, plan, "upgrade");
  const upgradeSlot = svm.getClock().slot;
  svm.warpToSlot(upgradeSlot + 1n);
  return upgradeSlot;
}

const SET_AUTHORITY = 4;

/** The loader's SetAuthority with no new authority: the program becomes immutable. */
export function buildMakeImmutableInstruction(programData: Address, authority: KeyPairSigner): Instruction {
  return {
    programAddress: BPF_LOADER_UPGRADEABLE_ADDRESS,
    accounts: [
      { address: programData, role: AccountRole.WRITABLE },
      { address: authority.address, role: AccountRole.READONLY_SIGNER, signer: authority },
    ],
    data: Uint8Array.of(SET_AUTHORITY, 0, 0, 0),
  } as Instruction;
}
