/**
 * The compute budget of every transaction the client sends: a compute-unit limit measured by
 * simulation plus a margin (so the fee and the block-packing cost match what the transaction
 * needs, rather than the 200 000 units per instruction a missing limit implies), and an optional
 * priority fee.
 */
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
  MAX_COMPUTE_UNIT_LIMIT,
} from "@solana-program/compute-budget";
import type { Instruction } from "@solana/kit";

/** 20 % above the simulated consumption: covers account-state changes between simulation and execution. */
export const DEFAULT_COMPUTE_UNIT_MARGIN = 0.2;

export { MAX_COMPUTE_UNIT_LIMIT };

/** `ceil(consumed × (1 + margin))`, never above the runtime's maximum of 1 400 000. */
export function computeUnitLimitFromSimulation(consumedUnits: number, margin: number): number {
  return Math.min(MAX_COMPUTE_UNIT_LIMIT, Math.ceil(consumedUnits * (1 + margin)));
}

export type ComputeBudgetSettings = Readonly<{
  computeUnitLimit: number;
  priorityFeeMicroLamports?: bigint | undefined;
}>;

/** SetComputeUnitLimit, then SetComputeUnitPrice when a priority fee is set; they go first in a transaction. */
export function buildComputeBudgetInstructions({
  computeUnitLimit,
  priorityFeeMicroLamports,
}: ComputeBudgetSettings): Instruction[] {
  const instructions: Instruction[] = [getSetComputeUnitLimitInstruction({ units: computeUnitLimit })];
  if (priorityFeeMicroLamports !== undefined && priorityFeeMicroLamports > 0n) {
    instructions.push(getSetComputeUnitPriceInstruction({ microLamports: priorityFeeMicroLamports }));
  }
  return instructions;
}
