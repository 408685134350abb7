/**
 * `jsonParsed` decoding of the Stake program's instructions (program "stake"), in a validator's
 * shapes: bincode, a u32 tag then the fields. The program takes two account layouts, the legacy one
 * with sysvar (and stake config) accounts and a minimal one without them; like the program and a
 * validator's parser, which layout an instruction uses is read from whether the account at a given
 * position is the sysvar. An instruction without accounts is left partially decoded, as a
 * validator leaves it.
 */
import type { Address } from "@solana/kit";

import {
  accountsOf,
  decodeBincodeInstruction,
  NotDecodable,
  type DataReader,
  type DecodedInstruction,
  type InstructionDecoder,
} from "./instruction-data.js";

export const STAKE_PROGRAM = "Stake11111111111111111111111111111111111111" as Address;
const CLOCK_SYSVAR = "SysvarC1ock11111111111111111111111111111111";
const RENT_SYSVAR = "SysvarRent111111111111111111111111111111111";
const STAKE_CONFIG = "StakeConfig11111111111111111111111111111111";

/** StakeAuthorize, a u32, as serde names its variants. */
function stakeAuthorize(data: DataReader): string {
  const variant = ["Staker", "Withdrawer"][data.u32()];
  if (variant === undefined) throw new NotDecodable();
  return variant;
}

/**
 * Whether the instruction uses the legacy layout: the account at `position` is `sysvar`. That
 * layout needs `needed` accounts, or the instruction is not decodable.
 */
function legacyLayout(
  accounts: readonly Address[],
  position: number,
  sysvar: string,
  needed: number,
): boolean {
  if (accounts[position] !== sysvar) return false;
  accountsOf(accounts, needed);
  return true;
}

/** The accounts from `position` on under `names`, as far as the instruction has them. */
function present(
  accounts: readonly Address[],
  position: number,
  names: readonly string[],
): Record<string, Address> {
  return Object.fromEntries(
    names.flatMap((name, index) => {
      const account = accounts[position + index];
      return account === undefined ? [] : [[name, account]];
    }),
  );
}

/** The lockup fields a SetLockup sets: those present. */
function lockupFields(unixTimestamp: bigint | null, epoch: bigint | null): Record<string, bigint> {
  return {
    ...(unixTimestamp === null ? {} : { unixTimestamp }),
    ...(epoch === null ? {} : { epoch }),
  };
}

/** By the instruction's tag (StakeInstruction's variant index). */
const DECODERS: readonly InstructionDecoder[] = [
  (accounts, data) => {
    const at = accountsOf(accounts, 1);
    const authorized = { staker: data.key(), withdrawer: data.key() };
    const lockup = { unixTimestamp: data.i64(), epoch: data.u64(), custodian: data.key() };
    return {
      type: "initialize",
      info: {
        stakeAccount: at(0),
        authorized,
        lockup,
        ...(legacyLayout(accounts, 1, RENT_SYSVAR, 2) ? { rentSysvar: at(1) } : {}),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const [newAuthority, authorityType] = [data.key(), stakeAuthorize(data)];
    const withClock = legacyLayout(accounts, 1, CLOCK_SYSVAR, 3);
    return {
      type: "authorize",
      info: {
        stakeAccount: at(0),
        newAuthority,
        authorityType,
        ...(withClock
          ? { clockSysvar: at(1), ...present(accounts, 2, ["authority", "custodian"]) }
          : present(accounts, 1, ["authority", "custodian"])),
      },
    };
  },
  (accounts) => {
    const at = accountsOf(accounts, 3);
    const withClock = legacyLayout(accounts, 2, CLOCK_SYSVAR, 5);
    // The fifth account of that layout is the stake config, which the program never reads:
    // clients may pass the stake authority in its place.
    const rest = !withClock
      ? { stakeAuthority: at(2) }
      : at(4) === STAKE_CONFIG
        ? {
            clockSysvar: at(2),
            stakeHistorySysvar: at(3),
            stakeConfigAccount: at(4),
            ...present(accounts, 5, ["stakeAuthority"]),
          }
        : { clockSysvar: at(2), stakeHistorySysvar: at(3), stakeAuthority: at(4) };
    return { type: "delegate", info: { stakeAccount: at(0), voteAccount: at(1), ...rest } };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    return {
      type: "split",
      info: {
        stakeAccount: at(0),
        newSplitAccount: at(1),
        lamports: data.u64(),
        ...present(accounts, 2, ["stakeAuthority"]),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 3);
    const withClock = legacyLayout(accounts, 2, CLOCK_SYSVAR, 5);
    return {
      type: "withdraw",
      info: {
        stakeAccount: at(0),
        destination: at(1),
        lamports: data.u64(),
        ...(withClock
          ? {
              clockSysvar: at(2),
              stakeHistorySysvar: at(3),
              ...present(accounts, 4, ["withdrawAuthority", "custodian"]),
            }
          : present(accounts, 2, ["withdrawAuthority", "custodian"])),
      },
    };
  },
  (accounts) => {
    const at = accountsOf(accounts, 2);
    return {
      type: "deactivate",
      info: {
        stakeAccount: at(0),
        ...(legacyLayout(accounts, 1, CLOCK_SYSVAR, 2)
          ? { clockSysvar: at(1), ...present(accounts, 2, ["stakeAuthority"]) }
          : { stakeAuthority: at(1) }),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const unixTimestamp = data.option(() => data.i64());
    const epoch = data.option(() => data.u64());
    const custodian = data.option(() => data.key());
    return {
      type: "setLockup",
      info: {
        stakeAccount: at(0),
        custodian: at(1),
        lockup: { ...lockupFields(unixTimestamp, epoch), ...(custodian === null ? {} : { custodian }) },
      },
    };
  },
  (accounts) => {
    const at = accountsOf(accounts, 3);
    const withClock = legacyLayout(accounts, 2, CLOCK_SYSVAR, 4);
    return {
      type: "merge",
      info: {
        destination: at(0),
        source: at(1),
        ...(withClock
          ? { clockSysvar: at(2), stakeHistorySysvar: at(3), ...present(accounts, 4, ["stakeAuthority"]) }
          : { stakeAuthority: at(2) }),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const [newAuthorized, authorityType, authoritySeed, authorityOwner] = [
      data.key(),
      stakeAuthorize(data),
      data.string(),
      data.key(),
    ];
    return {
      type: "authorizeWithSeed",
      info: {
        stakeAccount: at(0),
        authorityBase: at(1),
        newAuthorized,
        authorityType,
        authoritySeed,
        authorityOwner,
        ...(legacyLayout(accounts, 2, CLOCK_SYSVAR, 3)
          ? { clockSysvar: at(2), ...present(accounts, 3, ["custodian"]) }
          : present(accounts, 2, ["custodian"])),
      },
    };
  },
  (accounts) => {
    const at = accountsOf(accounts, 3);
    const withRent = legacyLayout(accounts, 1, RENT_SYSVAR, 4);
    return {
      type: "initializeChecked",
      info: {
        stakeAccount: at(0),
        ...(withRent
          ? { rentSysvar: at(1), staker: at(2), withdrawer: at(3) }
          : { staker: at(1), withdrawer: at(2) }),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 3);
    const authorityType = stakeAuthorize(data);
    const withClock = legacyLayout(accounts, 1, CLOCK_SYSVAR, 4);
    return {
      type: "authorizeChecked",
      info: {
        stakeAccount: at(0),
        authorityType,
        ...(withClock
          ? { clockSysvar: at(1), ...present(accounts, 2, ["authority", "newAuthority", "custodian"]) }
          : present(accounts, 1, ["authority", "newAuthority", "custodian"])),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 3);
    const [authorityType, authoritySeed, authorityOwner] = [stakeAuthorize(data), data.string(), data.key()];
    const withClock = legacyLayout(accounts, 2, CLOCK_SYSVAR, 4);
    return {
      type: "authorizeCheckedWithSeed",
      info: {
        stakeAccount: at(0),
        authorityBase: at(1),
        authorityType,
        authoritySeed,
        authorityOwner,
        ...(withClock
          ? { clockSysvar: at(2), ...present(accounts, 3, ["newAuthorized", "custodian"]) }
          : present(accounts, 2, ["newAuthorized", "custodian"])),
      },
    };
  },
  (accounts, data) => {
    const at = accountsOf(accounts, 2);
    const unixTimestamp = data.option(() => data.i64());
    const epoch = data.option(() => data.u64());
    return {
      type: "setLockupChecked",
      info: {
        stakeAccount: at(0),
        custodian: at(1),
        lockup: { ...lockupFields(unixTimestamp, epoch), ...present(accounts, 2, ["custodian"]) },
      },
    };
  },
  // GetMinimumDelegation: no fields, and a validator shows no info.
  () => ({ type: "getMinimumDelegation" }),
  (accounts) => {
    const at = accountsOf(accounts, 3);
    return {
      type: "deactivateDelinquent",
      info: { stakeAccount: at(0), voteAccount: at(1), referenceVoteAccount: at(2) },
    };
  },
  (accounts) => {
    const at = accountsOf(accounts, 5);
    return {
      type: "redelegate",
      info: {
        stakeAccount: at(0),
        newStakeAccount: at(1),
        voteAccount: at(2),
        stakeConfigAccount: at(3),
        stakeAuthority: at(4),
      },
    };
  },
  ...(["moveStake", "moveLamports"] as const).map((type): InstructionDecoder => (accounts, data) => {
    const at = accountsOf(accounts, 3);
    return {
      type,
      info: { source: at(0), destination: at(1), stakeAuthority: at(2), lamports: data.u64() },
    };
  }),
];

export function decodeStakeInstruction(
  accounts: readonly Address[],
  data: Uint8Array,
): DecodedInstruction | undefined {
  if (accounts.length === 0) return undefined;
  return decodeBincodeInstruction(DECODERS, accounts, data);
}
