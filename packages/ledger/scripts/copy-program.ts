/**
 * Puts the repository's built program (`program/dist/abas_attestation.so`) into this package's
 * `program/`, after checking it against its committed SHA-256, so the published `abas-ledger`
 * deploys the same bytes as the repository's.
 *
 *   npm run build -w @abas/ledger
 */
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const programDist = join(packageDir, "..", "..", "program", "dist");
const target = join(packageDir, "program");

const binary = readFileSync(join(programDist, "abas_attestation.so"));
const expected = readFileSync(join(programDist, "abas_attestation.so.sha256"), "utf8").trim().split(/\s+/)[0];
const actual = createHash("sha256").update(binary).digest("hex");
if (actual !== expected) {
  throw new Error(
    `program/dist/abas_attestation.so has SHA-256 ${actual}, its .sha256 file says ${expected}`,
  );
}
mkdirSync(target, { recursive: true });
for (const name of ["abas_attestation.so", "abas_attestation.so.sha256"]) {
  copyFileSync(join(programDist, name), join(target, name));
}
console.log(`copied abas_attestation.so (sha256 ${actual}) into packages/ledger/program/`);
