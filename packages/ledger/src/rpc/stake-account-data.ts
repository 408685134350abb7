/**
 * `jsonParsed` data of stake accounts (owned by the Stake program), in a validator's shape:
 * `{ program: "stake", parsed: { type, info }, space }`, the type "uninitialized", "initialized",
 * "delegated" or "rewardsPool", an initialized or delegated account's info its meta (rent-exempt
 * reserve, authorities, lockup) and its stake (null until delegated). Data bincode does not read as
 * a StakeStateV2 has no parsed form, as on a validator.
 */
import { parsedOrUndefined, type BincodeReader } from "./bincode-reader.js";
import type { ParsedAccountData } from "./account-encoding.js";

function meta(read: BincodeReader) {
  return {
    rentExemptReserve: read.u64().toString(),
    authorized: { staker: read.hash(), withdrawer: read.hash() },
    lockup: { unixTimestamp: read.i64(), epoch: read.u64(), custodian: read.hash() },
  };
}

function stake(read: BincodeReader) {
  const delegation = {
    voter: read.hash(),
    stake: read.u64().toString(),
    activationEpoch: read.u64().toString(),
    deactivationEpoch: read.u64().toString(),
  };
  read.f64(); // the warmup/cooldown rate, which a validator does not show
  return { delegation, creditsObserved: read.u64() };
}

export function parseStakeAccountData(data: Uint8Array): ParsedAccountData | undefined {
  return parsedOrUndefined("stake", data, (read) => {
    switch (read.u32()) {
      case 0:
        return { type: "uninitialized" };
      case 1:
        return { type: "initialized", info: { meta: meta(read), stake: null } };
      case 2: {
        const info = { meta: meta(read), stake: stake(read) };
        read.u8(); // the stake flags
        return { type: "delegated", info };
      }
      case 3:
        return { type: "rewardsPool" };
      default:
        throw new RangeError("not a stake state");
    }
  });
}
