/**
 * Where an instruction's account or data field sits, read from the IDL by name, so the tests that
 * swap an account or a bump byte follow the interface instead of restating its order.
 */
import { buildAbasIdl } from "../idl/abas-idl.js";

const instructions = buildAbasIdl().program.instructions;

function instructionNamed(name: string) {
  const instruction = instructions.find((candidate) => candidate.name === name);
  if (instruction === undefined) throw new Error(`the IDL has no instruction ${name}`);
  return instruction;
}

/** The position of `account` among the accounts of `instruction`. */
export function accountPosition(instruction: string, account: string): number {
  const position = instructionNamed(instruction).accounts.findIndex(
    (candidate) => candidate.name === account,
  );
  if (position < 0) throw new Error(`${instruction} has no account ${account}`);
  return position;
}

/** The byte offset of `argument` in the data of `instruction`; the fields before it are single bytes. */
export function dataOffset(instruction: string, argument: string): number {
  const fields = instructionNamed(instruction).arguments;
  const position = fields.findIndex((candidate) => candidate.name === argument);
  if (position < 0) throw new Error(`${instruction} has no argument ${argument}`);
  for (const field of fields.slice(0, position)) {
    const type = field.type;
    if (type.kind !== "numberTypeNode" || type.format !== "u8") {
      throw new Error(`${instruction}.${field.name} is not one byte`);
    }
  }
  return position;
}
