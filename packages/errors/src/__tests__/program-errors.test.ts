import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { isAbasError } from "../abas-error.js";
import { ABAS_PROGRAM__AGENT_REVOKED, ABAS_PROGRAM__INVALID_PDA } from "../codes.js";
import {
  PROGRAM_ERROR_NAMES,
  getProgramErrorName,
  isProgramErrorCode,
  programErrorFromCustomCode,
} from "../program-errors.js";
import { ALL_CODES, domainOf } from "./all-codes.js";

const REPOSITORY_ROOT = new URL("../../../../", import.meta.url);
const RUST_ERROR_FILE = fileURLToPath(new URL("program/src/error.rs", REPOSITORY_ROOT));
const PROGRAM_DOC_FILE = fileURLToPath(new URL("docs/program.md", REPOSITORY_ROOT));

/** `Name = 1000` variants of `pub enum ProgramError` in the program's Rust source, as code -> name. */
function readRustProgramErrors(): Map<number, string> {
  assert.ok(
    existsSync(RUST_ERROR_FILE),
    `${RUST_ERROR_FILE} does not exist: the program's ProgramError enum is needed to check the codes`,
  );
  const source = readFileSync(RUST_ERROR_FILE, "utf8")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/[^\n]*/g, "");
  const enumMatch = /#\[repr\(u32\)\][^{]*?pub\s+enum\s+ProgramError\s*\{([^}]*)\}/.exec(source);
  assert.ok(enumMatch, `${RUST_ERROR_FILE} has no #[repr(u32)] pub enum ProgramError { ... }`);
  const errors = new Map<number, string>();
  for (const variant of enumMatch[1]!.split(",").map((part) => part.trim())) {
    if (variant === "") continue;
    const variantMatch = /^(\w+)\s*=\s*(\d+)$/.exec(variant);
    assert.ok(variantMatch, `ProgramError variant without an explicit code: ${variant}`);
    errors.set(Number(variantMatch[2]), variantMatch[1]!);
  }
  return errors;
}

/** The rows of the table under "## Errors" in docs/program.md, as code -> name. */
function readDocumentedProgramErrors(): Map<number, string> {
  const document = readFileSync(PROGRAM_DOC_FILE, "utf8");
  const section = document.split(/^## /m).find((part) => part.startsWith("Errors\n"));
  assert.ok(section, "docs/program.md has no ## Errors section");
  const errors = new Map<number, string>();
  for (const row of section.matchAll(/^\|\s*(\d+)\s*\|\s*`(\w+)`\s*\|/gm)) {
    errors.set(Number(row[1]), row[2]!);
  }
  assert.ok(errors.size > 0, "the ## Errors table of docs/program.md has no rows");
  return errors;
}

function namesByCode(): Map<number, string> {
  return new Map(Object.entries(PROGRAM_ERROR_NAMES).map(([code, name]) => [Number(code), name]));
}

/** `Ed25519OffsetsOutsideInstruction` -> `ED25519_OFFSETS_OUTSIDE_INSTRUCTION`. */
function toUpperSnakeCase(pascalCase: string): string {
  return pascalCase.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

describe("program error names", () => {
  it("match the error table of docs/program.md, code for code", () => {
    assert.deepEqual(namesByCode(), readDocumentedProgramErrors());
  });

  it("match the ProgramError enum of program/src/error.rs, code for code", () => {
    assert.deepEqual(namesByCode(), readRustProgramErrors());
  });

  it("name every ABAS_PROGRAM constant after its Rust variant", () => {
    // Given every ABAS_PROGRAM code constant
    const programCodes = ALL_CODES.filter(([name]) => domainOf(name) === "ABAS_PROGRAM");
    assert.equal(programCodes.length, Object.keys(PROGRAM_ERROR_NAMES).length);
    for (const [constantName, code] of programCodes) {
      // Then it has a Rust name, and its constant name spells that name
      const rustName = getProgramErrorName(code);
      assert.ok(rustName, `${constantName} has no Rust name`);
      assert.equal(constantName, `ABAS_PROGRAM__${toUpperSnakeCase(rustName)}`);
    }
  });

  it("looks a name up by code, and finds none for codes the program does not return", () => {
    assert.equal(getProgramErrorName(ABAS_PROGRAM__INVALID_PDA), "InvalidPda");
    assert.equal(getProgramErrorName(999), undefined);
    assert.equal(getProgramErrorName(3000), undefined);
    assert.equal(isProgramErrorCode(1203), true);
    assert.equal(isProgramErrorCode("1203"), false);
  });
});

describe("programErrorFromCustomCode", () => {
  it("turns one of the program's custom codes into its named AbasError", () => {
    // Given the custom code the program returns for a revoked agent, from instruction #1
    // When it is converted
    const error = programErrorFromCustomCode(1203, { instructionIndex: 1 });
    // Then it is the AbasError of that code, with the Rust name and the instruction index
    assert.ok(isAbasError(error, ABAS_PROGRAM__AGENT_REVOKED));
    assert.equal(error.context.programErrorName, "AgentRevoked");
    assert.equal(error.context.instructionIndex, 1);
    assert.equal(error.message, "The agent is revoked");
  });

  it("leaves out the instruction index when it is unknown", () => {
    const error = programErrorFromCustomCode(1105);
    assert.ok(error);
    assert.equal("instructionIndex" in error.context, false);
  });

  it("returns undefined for a custom code of another program", () => {
    // Given custom codes that are not the program's (the Ed25519 precompile's, an SDK code)
    for (const customCode of [0, 2, 999, 1007, 1999, 3000]) {
      // Then there is no program error for them
      assert.equal(programErrorFromCustomCode(customCode), undefined);
    }
  });
});
