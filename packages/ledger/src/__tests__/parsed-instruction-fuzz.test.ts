/**
 * Random instruction and account data (a fixed seed) never makes a jsonParsed decoder throw: each
 * decodes the data or gives up, leaving it to be shown partially decoded or in base64. A throw
 * would fail getTransaction, getBlock or getAccountInfo for whatever holds such data, and anyone
 * can land a transaction with any instruction data.
 */
import assert from "node:assert/strict";
import { hash } from "node:crypto";
import { test } from "node:test";

import { ABAS_ATTESTATION_PROGRAM_ADDRESS } from "@abas/program-client";
import { Keypair } from "@solana/web3.js";
import type { Address } from "@solana/kit";

import { instructionParsers, renderParsedInstruction } from "../rpc/parsed-instruction.js";
import { parseStakeAccountData } from "../rpc/stake-account-data.js";
import { STAKE_PROGRAM } from "../rpc/stake-instruction.js";
import { SYSTEM_PROGRAM } from "../rpc/system-instruction.js";
import { UPGRADEABLE_LOADER } from "../rpc/upgradeable-loader-account-data.js";
import { TOKEN_2022_PROGRAM } from "../token/token-state.js";

const RUNS = 20_000;

/** A seeded generator of integers below `below` (mulberry32). */
function randomIntegers(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state + 0x6d2b79f5) | 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return Math.floor((((mixed ^ (mixed >>> 14)) >>> 0) / 2 ** 32) * below);
  };
}

/**
 * Random bytes, small ones often, so that tags, options and lengths are often valid; in every other
 * run mostly zeros, so that a u64 length (eight bytes) is often a small one.
 */
function randomBytes(random: (below: number) => number, length: number): number[] {
  const mostlyZeros = random(2) === 0;
  return Array.from({ length }, () => {
    if (mostlyZeros && random(4) !== 0) return 0;
    return random(2) === 0 ? random(4) : random(256);
  });
}

const u32 = (value: number): Uint8Array => Uint8Array.of(value, 0, 0, 0);

const INTERFACE_NAMES = [
  "spl_token_group_interface:initialize_token_group",
  "spl_token_group_interface:update_group_max_size",
  "spl_token_group_interface:update_authority",
  "spl_token_group_interface:initialize_member",
  "spl_token_metadata_interface:initialize_account",
  "spl_token_metadata_interface:updating_field",
  "spl_token_metadata_interface:remove_key_ix",
  "spl_token_metadata_interface:update_the_authority",
  "spl_token_metadata_interface:emitter",
];

/**
 * Each program with the beginnings of its instructions' data, and for a program that takes only
 * data of an instruction's exact length, each beginning's lengths (half its runs use one).
 */
const PROGRAMS: ReadonlyArray<{ program: Address; prefixes: Uint8Array[]; lengths?: number[][] }> = [
  {
    program: TOKEN_2022_PROGRAM,
    prefixes: [
      ...Array.from({ length: 46 }, (_, tag) => Uint8Array.of(tag)),
      ...INTERFACE_NAMES.map((name) => Uint8Array.from(hash("sha256", name, "buffer").subarray(0, 8))),
    ],
  },
  { program: STAKE_PROGRAM, prefixes: Array.from({ length: 19 }, (_, tag) => u32(tag)) },
  { program: SYSTEM_PROGRAM, prefixes: Array.from({ length: 14 }, (_, tag) => u32(tag)) },
  { program: UPGRADEABLE_LOADER, prefixes: Array.from({ length: 11 }, (_, tag) => u32(tag)) },
  {
    program: ABAS_ATTESTATION_PROGRAM_ADDRESS,
    prefixes: Array.from({ length: 7 }, (_, tag) => Uint8Array.of(tag)),
    // initialize, registerAgent, updateAgent, attest, attestBatch, publishBatchLeaves of 1-3 leaves
    lengths: [[5], [3], [3], [36], [36], [37, 71, 105], [1]],
  },
];

const PARSERS = instructionParsers(ABAS_ATTESTATION_PROGRAM_ADDRESS);

test("no instruction data makes a jsonParsed instruction decoder throw", () => {
  const random = randomIntegers(1);
  const accounts = Array.from({ length: 11 }, () => Keypair.generate().publicKey.toBase58() as Address);
  const decoded = new Map<Address, number>();
  for (let run = 0; run < RUNS; run++) {
    const { program, prefixes, lengths } = PROGRAMS[random(PROGRAMS.length)]!;
    const which = random(prefixes.length);
    const prefix = prefixes[which]!;
    const exact = lengths?.[which];
    const length =
      exact !== undefined && random(2) === 0 ? exact[random(exact.length)]! - prefix.length : random(120);
    const data = Uint8Array.from([...prefix, ...randomBytes(random, length)]);
    const shown = renderParsedInstruction(PARSERS, program, accounts.slice(0, random(12)), data, 1);
    if ("parsed" in (shown as object)) decoded.set(program, (decoded.get(program) ?? 0) + 1);
  }
  // Each program's decoders were reached, not only their refusals
  for (const { program } of PROGRAMS)
    assert.ok((decoded.get(program) ?? 0) > 200, `${program}: ${decoded.get(program)}`);
});

test("no account data makes the stake account parser throw", () => {
  const random = randomIntegers(2);
  let parsed = 0;
  for (let run = 0; run < RUNS; run++) {
    const data = Uint8Array.from([...u32(random(5)), ...randomBytes(random, random(220))]);
    if (parseStakeAccountData(data) !== undefined) parsed += 1;
  }
  assert.ok(parsed > 200, `${parsed} parsed`);
});
