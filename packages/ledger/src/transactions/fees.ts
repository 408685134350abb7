/**
 * The fee a validator charges for a message: 5,000 lamports per signature (the transaction's own
 * and those its Ed25519 / secp256k1 / secp256r1 precompile instructions verify) plus the priority
 * fee, compute-unit price × compute-unit limit.
 */
import type { WireTransaction } from "./wire-transaction.js";

export const LAMPORTS_PER_SIGNATURE = 5_000n;

const COMPUTE_BUDGET_PROGRAM = "ComputeBudget111111111111111111111111111111";
const PRECOMPILES = new Set([
  "Ed25519SigVerify111111111111111111111111111",
  "KeccakSecp256k11111111111111111111111111111",
  "Secp256r1SigVerify1111111111111111111111111",
]);

/**
 * Programs built into the runtime: without an explicit limit a transaction gets 3,000 compute
 * units for each of their instructions and 200,000 for each other one (capped at 1.4 million).
 */
const BUILTIN_PROGRAMS = new Set([
  ...PRECOMPILES,
  COMPUTE_BUDGET_PROGRAM,
  "11111111111111111111111111111111",
  "Vote111111111111111111111111111111111111111",
  "BPFLoader1111111111111111111111111111111111",
  "BPFLoader2111111111111111111111111111111111",
  "BPFLoaderUpgradeab1e11111111111111111111111",
  "LoaderV411111111111111111111111111111111111",
  "AddressLookupTab1e1111111111111111111111111",
  "ZkE1Gama1Proof11111111111111111111111111111",
]);

const SET_COMPUTE_UNIT_LIMIT = 2;
const SET_COMPUTE_UNIT_PRICE = 3;
const DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT = 200_000n;
const BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT = 3_000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;

export interface ComputeBudget {
  /** Micro-lamports per compute unit; 0 when the transaction sets no price. */
  readonly computeUnitPrice: bigint;
  readonly computeUnitLimit: bigint;
}

type FeeInput = Pick<WireTransaction, "header" | "staticAccountKeys" | "instructions">;

export function readComputeBudget(message: FeeInput): ComputeBudget {
  let price = 0n;
  let limit: bigint | undefined;
  let defaultLimit = 0n;
  for (const instruction of message.instructions) {
    const program = message.staticAccountKeys[instruction.programIdIndex] ?? "";
    defaultLimit += BUILTIN_PROGRAMS.has(program)
      ? BUILTIN_INSTRUCTION_COMPUTE_UNIT_LIMIT
      : DEFAULT_INSTRUCTION_COMPUTE_UNIT_LIMIT;
    if (program !== COMPUTE_BUDGET_PROGRAM) continue;
    const view = new DataView(
      instruction.data.buffer,
      instruction.data.byteOffset,
      instruction.data.byteLength,
    );
    if (instruction.data[0] === SET_COMPUTE_UNIT_LIMIT && instruction.data.length >= 5) {
      limit = BigInt(view.getUint32(1, true));
    } else if (instruction.data[0] === SET_COMPUTE_UNIT_PRICE && instruction.data.length >= 9) {
      price = view.getBigUint64(1, true);
    }
  }
  const computeUnitLimit = limit ?? defaultLimit;
  return {
    computeUnitPrice: price,
    computeUnitLimit: computeUnitLimit > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : computeUnitLimit,
  };
}

export function calculateFee(message: FeeInput): bigint {
  let signatures = BigInt(message.header.numRequiredSignatures);
  for (const instruction of message.instructions) {
    const program = message.staticAccountKeys[instruction.programIdIndex];
    if (program !== undefined && PRECOMPILES.has(program)) signatures += BigInt(instruction.data[0] ?? 0);
  }
  const { computeUnitPrice, computeUnitLimit } = readComputeBudget(message);
  const priorityFee =
    (computeUnitPrice * computeUnitLimit + MICRO_LAMPORTS_PER_LAMPORT - 1n) / MICRO_LAMPORTS_PER_LAMPORT;
  return signatures * LAMPORTS_PER_SIGNATURE + priorityFee;
}
