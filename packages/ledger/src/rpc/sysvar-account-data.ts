/**
 * `jsonParsed` data of sysvar accounts, in a validator's shape: `{ program: "sysvar", parsed:
 * { type, info }, space }`, with the types and fields a validator's account decoder gives them
 * (clock, epochSchedule, fees, recentBlockhashes, rent, rewards, slotHashes, slotHistory,
 * stakeHistory, lastRestartSlot, epochRewards). Data too short for its sysvar, or an address that
 * is no sysvar the decoder knows, has no parsed form: the caller falls back to base64, as a
 * validator does.
 */
import type { Address } from "@solana/kit";

import { BincodeReader, parsedOrUndefined } from "./bincode-reader.js";
import type { ParsedAccountData } from "./account-encoding.js";

/** SlotHistory keeps this many slots, one bit each. */
const SLOT_HISTORY_ENTRIES = 1024 * 1024;

function slotHistoryBits(read: BincodeReader): { nextSlot: bigint; bits: string } {
  // bv's BitVec<u64>: an Option of the u64 words, then the length in bits.
  const words = read.u8() === 1 ? read.vec(read.u64) : [];
  const length = read.u64();
  const nextSlot = read.u64();
  let bits = "";
  for (let word = 0; word < SLOT_HISTORY_ENTRIES / 64; word += 1) {
    const value = words[word] ?? 0n;
    for (let bit = 0; bit < 64; bit += 1) {
      const index = word * 64 + bit;
      bits += BigInt(index) < length && ((value >> BigInt(bit)) & 1n) === 1n ? "1" : "0";
    }
  }
  return { nextSlot, bits };
}

const feeCalculator = (read: BincodeReader) => ({ lamportsPerSignature: read.u64().toString() });

/** Each sysvar the account decoder knows: its address, its type name and its fields. */
const SYSVARS: Record<string, { type: string; info: (read: BincodeReader) => unknown }> = {
  SysvarC1ock11111111111111111111111111111111: {
    type: "clock",
    info: (read) => {
      const [slot, epochStartTimestamp, epoch, leaderScheduleEpoch, unixTimestamp] = [
        read.u64(),
        read.i64(),
        read.u64(),
        read.u64(),
        read.i64(),
      ];
      return { slot, epoch, epochStartTimestamp, leaderScheduleEpoch, unixTimestamp };
    },
  },
  SysvarEpochSchedu1e111111111111111111111111: {
    type: "epochSchedule",
    info: (read) => ({
      slotsPerEpoch: read.u64(),
      leaderScheduleSlotOffset: read.u64(),
      warmup: read.bool(),
      firstNormalEpoch: read.u64(),
      firstNormalSlot: read.u64(),
    }),
  },
  SysvarFees111111111111111111111111111111111: {
    type: "fees",
    info: (read) => ({ feeCalculator: feeCalculator(read) }),
  },
  SysvarRecentB1ockHashes11111111111111111111: {
    type: "recentBlockhashes",
    info: (read) => read.vec(() => ({ blockhash: read.hash(), feeCalculator: feeCalculator(read) })),
  },
  SysvarRent111111111111111111111111111111111: {
    type: "rent",
    info: (read) => ({
      lamportsPerByteYear: read.u64().toString(),
      exemptionThreshold: read.f64(),
      burnPercent: read.u8(),
    }),
  },
  SysvarRewards111111111111111111111111111111: {
    type: "rewards",
    info: (read) => ({ validatorPointValue: read.f64() }),
  },
  SysvarS1otHashes111111111111111111111111111: {
    type: "slotHashes",
    info: (read) => read.vec(() => ({ slot: read.u64(), hash: read.hash() })),
  },
  SysvarS1otHistory11111111111111111111111111: { type: "slotHistory", info: slotHistoryBits },
  SysvarStakeHistory1111111111111111111111111: {
    type: "stakeHistory",
    info: (read) =>
      read.vec(() => ({
        epoch: read.u64(),
        stakeHistory: { effective: read.u64(), activating: read.u64(), deactivating: read.u64() },
      })),
  },
  SysvarLastRestartS1ot1111111111111111111111: {
    type: "lastRestartSlot",
    info: (read) => ({ lastRestartSlot: read.u64() }),
  },
  SysvarEpochRewards1111111111111111111111111: {
    type: "epochRewards",
    info: (read) => ({
      distributionStartingBlockHeight: read.u64(),
      numPartitions: read.u64(),
      parentBlockhash: read.hash(),
      totalPoints: read.u128().toString(),
      totalRewards: read.u64().toString(),
      distributedRewards: read.u64().toString(),
      active: read.bool(),
    }),
  },
};

/** The parsed form of the sysvar account at `address`, or undefined. */
export function parseSysvarAccountData(address: Address, data: Uint8Array): ParsedAccountData | undefined {
  const sysvar = SYSVARS[address];
  if (sysvar === undefined) return undefined;
  return parsedOrUndefined("sysvar", data, (read) => ({ type: sysvar.type, info: sysvar.info(read) }));
}
