/**
 * Reads facts of the program's interface straight from its Rust source (`program/src`): constants
 * (evaluated, so `ATTESTATION_SIZE` is the number the compiler sees), enums' variants, the accounts
 * each instruction destructures and checks, and the seeds of each PDA it proves canonical. The IDL
 * test compares them with the IDL, so neither can change without the other.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE_ROOT = fileURLToPath(new URL("../src/", import.meta.url));

export type RustFile = Readonly<{ path: string; text: string }>;

function readSources(): RustFile[] {
  return readdirSync(SOURCE_ROOT, { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".rs"))
    .map((path) => ({ path: relative(SOURCE_ROOT, join(SOURCE_ROOT, path)), text: readSource(path) }));
}

/** The source without comments, so commented-out code never counts. */
function readSource(path: string): string {
  return readFileSync(join(SOURCE_ROOT, path), "utf8").replace(/\/\/.*$/gm, "");
}

const SOURCES = readSources();

export function rustFile(path: string): string {
  const file = SOURCES.find((source) => source.path === path);
  if (file === undefined) throw new Error(`program/src/${path} not found`);
  return file.text;
}

type Constant = Readonly<{ file: string; name: string; expression: string }>;

const CONSTANTS: Constant[] = SOURCES.flatMap(({ path, text }) =>
  [...text.matchAll(/\bconst (\w+): [^=]+= ([^;]+);/g)].map((match) => ({
    file: path,
    name: match[1]!,
    expression: match[2]!.trim(),
  })),
);

/** A constant of `file`, or the only constant of that name in the crate. */
function findConstant(name: string, file: string): Constant {
  const local = CONSTANTS.find((constant) => constant.name === name && constant.file === file);
  if (local) return local;
  const everywhere = CONSTANTS.filter((constant) => constant.name === name);
  if (everywhere.length !== 1)
    throw new Error(`constant ${name} of ${file}: ${everywhere.length} candidates`);
  return everywhere[0]!;
}

/** The bytes of a byte-string constant (`b"agent"`). */
export function rustByteString(name: string, file: string): string {
  const { expression } = findConstant(name, file);
  const literal = /^b"([^"]*)"$/.exec(expression);
  if (!literal) throw new Error(`${name} is not a byte string: ${expression}`);
  return literal[1]!;
}

/** The value of an integer constant, its expression evaluated with the crate's other constants. */
export function rustInteger(name: string, file: string): number {
  const constant = findConstant(name, file);
  return evaluate(constant.expression, constant.file);
}

function evaluate(expression: string, file: string): number {
  const substituted = expression
    .replace(/(\w+)\.len\(\)/g, (_, name: string) => String(rustByteString(name, file).length))
    .replace(/\b[A-Z][A-Z0-9_]*\b/g, (name) => String(rustInteger(name, findConstant(name, file).file)));
  if (!/^[\d\s+*()<>-]+$/.test(substituted)) throw new Error(`cannot evaluate ${expression}`);
  return Number(new Function(`return (${substituted});`)());
}

/** `pub const NAME: u8 = 3;` inside `pub mod <module> { ... }` of `file`. */
export function rustModuleIntegers(file: string, module: string): Map<string, number> {
  const body = new RegExp(`mod ${module} \\{([^}]*)\\}`).exec(rustFile(file))?.[1];
  if (body === undefined) throw new Error(`mod ${module} not found in ${file}`);
  return new Map([...body.matchAll(/const (\w+): \w+ = (\d+);/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** The variants of a `#[repr(u32)]` enum with their explicit codes. */
export function rustEnumCodes(file: string, name: string): Map<string, number> {
  const body = new RegExp(`pub enum ${name} \\{([^}]*)\\}`).exec(rustFile(file))?.[1];
  if (body === undefined) throw new Error(`enum ${name} not found in ${file}`);
  return new Map([...body.matchAll(/(\w+) = (\d+),/g)].map((m) => [m[1]!, Number(m[2])]));
}

export type RustInstructionAccounts = Readonly<{
  /** Names of the destructured accounts, in order. */
  names: string[];
  signers: Set<string>;
  writable: Set<string>;
}>;

/** `let [a, b, ...] = input.accounts::<N>()` and the `expect_signer` / `expect_writable` checks of `file`. */
export function rustInstructionAccounts(file: string): RustInstructionAccounts {
  const text = rustFile(file);
  const destructured = /let \[([^\]]+)\] =\s*input\.accounts::<(\d+)>\(\)/.exec(text);
  if (!destructured) throw new Error(`no account list in ${file}`);
  const names = destructured[1]!.split(",").map((name) => name.trim());
  if (names.length !== Number(destructured[2])) throw new Error(`${file}: the list and its count differ`);
  const signers = new Set([...text.matchAll(/expect_signer\(&(\w+)\)/g)].map((m) => m[1]!));
  const writable = new Set([...text.matchAll(/expect_writable\(&(\w+)\)/g)].map((m) => m[1]!));
  for (const loop of text.matchAll(/for account in \[([^\]]+)\] \{\s*expect_writable\(account\)/g)) {
    for (const name of loop[1]!.split(",")) writable.add(name.trim().replace(/^&/, ""));
  }
  return { names, signers, writable };
}

export type RustSeeds = Readonly<{ prefix: string | undefined; variables: string[] }>;

/**
 * Every `let seeds: [&[u8]; N] = [...]` of `file` (bump last): the constant prefix's bytes and
 * the names of the variable seeds, with the spelling of the code (`agent.key()` -> `agent`).
 */
export function rustSeedSets(file: string): RustSeeds[] {
  const text = rustFile(file);
  return [...text.matchAll(/let (?:\w+_)?seeds: \[&\[u8\]; \d+\] = \[([^;]+)\];/g)].map((match) => {
    const parts = match[1]!.split(/,(?![^[]*\])/).map((part) => part.trim());
    const bump = parts.pop();
    if (!bump?.startsWith("&[")) throw new Error(`${file}: the last seed is not a bump`);
    const [first, ...rest] = parts;
    const prefix =
      first !== undefined && /^[A-Z_]+_SEED$/.test(first) ? rustByteString(first, file) : undefined;
    const variables = (prefix === undefined ? parts : rest).map((part) =>
      part
        .replace(/^&\[?/, "")
        .replace(/\]$/, "")
        .replace(/^(rec|spec)\./, "")
        .replace(/\.key\(\)$/, "")
        .replace(/_key$/, ""),
    );
    return { prefix, variables };
  });
}

export type RustSchema = Readonly<{ name: string; version: number }>;

/** `pub const <NAME>: SchemaSpec = SchemaSpec { name: b"...", version: N, ... }` */
export function rustSchema(constant: string): RustSchema {
  const match = new RegExp(
    `const ${constant}: SchemaSpec = SchemaSpec \\{\\s*name: b"([^"]+)",\\s*version: (\\d+),`,
  ).exec(rustFile("state/schema.rs"));
  if (!match) throw new Error(`schema ${constant} not found`);
  return { name: match[1]!, version: Number(match[2]) };
}
