/**
 * Instructions as `jsonParsed` shows them, in a validator's shape: a program with a parser here
 * gives `{ program, programId, parsed, stackHeight }` (System, SPL Token and Token-2022, the
 * Associated Token Account program, SPL Memo, Address Lookup Table, Stake, the BPF Upgradeable
 * Loader) and the ledger's own ABAS program, which no validator has a parser for, gives
 * `{ program, programId, parsed, stackHeight }`; any other instruction, and one its parser refuses,
 * comes back partially decoded as `{ programId, accounts, data, stackHeight }`, as a validator shows
 * instructions it has no parser for.
 */
import type { Address } from "@solana/kit";

import { toBase58 } from "../encoding.js";
import { ADDRESS_LOOKUP_TABLE_PROGRAM } from "../transactions/address-lookup-tables.js";
import { abasInstructionDecoder } from "./abas-instruction.js";
import { decodeAddressLookupTableInstruction } from "./address-lookup-table-instruction.js";
import { decodeAssociatedTokenInstruction } from "./associated-token-instruction.js";
import { utf8Text } from "./instruction-data.js";
import { SYSTEM_PROGRAM, decodeSystemInstruction } from "./system-instruction.js";
import { decodeStakeInstruction, STAKE_PROGRAM } from "./stake-instruction.js";
import { decodeTokenInstruction } from "./token-instruction.js";
import { decodeUpgradeableLoaderInstruction } from "./upgradeable-loader-instruction.js";
import { UPGRADEABLE_LOADER } from "./upgradeable-loader-account-data.js";
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from "../token/token-state.js";

interface InstructionParser {
  readonly program: string;
  /** The parsed value (usually `{ type, info }`), or undefined when the instruction is refused. */
  readonly parse: (accounts: readonly Address[], data: Uint8Array) => unknown;
}

const ASSOCIATED_TOKEN_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL" as Address;
const MEMO_PROGRAMS = [
  "Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo",
  "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
] as const;

/** A memo is its UTF-8 text; other bytes make it unparsable. */
function parseMemo(_accounts: readonly Address[], data: Uint8Array): string | undefined {
  return utf8Text(data);
}

const tokenParser: InstructionParser = { program: "spl-token", parse: decodeTokenInstruction };
const memoParser: InstructionParser = { program: "spl-memo", parse: parseMemo };

const PARSERS: ReadonlyMap<string, InstructionParser> = new Map<string, InstructionParser>([
  [SYSTEM_PROGRAM, { program: "system", parse: decodeSystemInstruction }],
  [TOKEN_PROGRAM, tokenParser],
  [TOKEN_2022_PROGRAM, tokenParser],
  [
    ASSOCIATED_TOKEN_PROGRAM,
    { program: "spl-associated-token-account", parse: decodeAssociatedTokenInstruction },
  ],
  ...MEMO_PROGRAMS.map((id) => [id, memoParser] as const),
  [
    ADDRESS_LOOKUP_TABLE_PROGRAM,
    { program: "address-lookup-table", parse: decodeAddressLookupTableInstruction },
  ],
  [STAKE_PROGRAM, { program: "stake", parse: decodeStakeInstruction }],
  [UPGRADEABLE_LOADER, { program: "bpf-upgradeable-loader", parse: decodeUpgradeableLoaderInstruction }],
]);

/** The parser of each program jsonParsed decodes, the ABAS program at `abasProgramId` among them. */
export type InstructionParsers = (programId: Address) => InstructionParser | undefined;

export function instructionParsers(abasProgramId: Address): InstructionParsers {
  const abasParser: InstructionParser = {
    program: "abas-attestation",
    parse: abasInstructionDecoder(abasProgramId),
  };
  return (programId) => PARSERS.get(programId) ?? (programId === abasProgramId ? abasParser : undefined);
}

/** One instruction as `jsonParsed` shows it. */
export function renderParsedInstruction(
  parsers: InstructionParsers,
  programId: Address,
  accounts: readonly Address[],
  data: Uint8Array,
  stackHeight: number | null,
): unknown {
  const parser = parsers(programId);
  const parsed = parser?.parse(accounts, data);
  if (parser === undefined || parsed === undefined) {
    return { programId, accounts, data: toBase58(data), stackHeight };
  }
  return { program: parser.program, programId, parsed, stackHeight };
}
