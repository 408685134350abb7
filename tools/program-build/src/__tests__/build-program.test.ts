import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { generateKeyPairSigner, type Address } from "@solana/kit";
import { TransactionMetadata } from "litesvm";
import { buildProgram, type BuildProgramResult } from "../build-program.js";
import type { SbpfVersion } from "../sbpf-link/sbpf-version.js";
import { REPO_ROOT } from "../paths.js";
import { locateToolchain } from "../toolchain.js";
import {
  createFundedSvm,
  customErrorCode,
  deployWithUpgradeableLoader,
  invokeProgram,
  logsOf,
  type FundedSvm,
} from "./helpers/svm.js";
import { skipWithoutToolchain } from "./helpers/toolchain.js";

const skip = skipWithoutToolchain();
const FIXTURE_CRATE = fileURLToPath(new URL("../../fixtures/sample-program/src/lib.rs", import.meta.url));
const FIXTURE_NAME = "sample_program";
/** FIXTURE_ERROR in the fixture crate. */
const FIXTURE_ERROR = 0x2a17;

const Op = { HashPayload: 0, Transform: 1, Arithmetic: 2, Fail: 3, ByteAt: 4 } as const;

function buildFixture(scratch: string, sbpfVersion?: SbpfVersion): BuildProgramResult {
  return buildProgram({
    toolchain: locateToolchain(),
    crateRoot: FIXTURE_CRATE,
    crateName: FIXTURE_NAME,
    outDir: join(scratch, "dist"),
    workDir: join(scratch, "work"),
    sourceRoot: REPO_ROOT,
    sbpfVersion,
  });
}

function u64le(value: bigint): Uint8Array {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, BigInt.asUintN(64, value), true);
  return bytes;
}

const i64At = (bytes: Uint8Array, at: number): bigint => Buffer.from(bytes).readBigInt64LE(at);
const u64At = (bytes: Uint8Array, at: number): bigint => Buffer.from(bytes).readBigUInt64LE(at);

function returnData(result: Awaited<ReturnType<typeof invokeProgram>>): Uint8Array {
  assert.ok(result instanceof TransactionMetadata, `transaction failed:\n${logsOf(result).join("\n")}`);
  return result.returnData().data();
}

describe("buildProgram: the sample program, built and run in the SVM", { skip }, () => {
  let scratch = "";
  let built: BuildProgramResult;
  let program: Uint8Array;

  async function loadProgram(): Promise<FundedSvm & { programId: Address }> {
    const funded = await createFundedSvm();
    const programId = (await generateKeyPairSigner()).address;
    funded.svm.addProgram(programId, program);
    return { ...funded, programId };
  }

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "program-build-test-"));
    built = buildFixture(scratch);
    program = built.program;
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test("writes the .so, its sha256 file and build-info.json", () => {
    // Given the build above, then the files on disk describe the program
    const onDisk = readFileSync(join(scratch, "dist", `${FIXTURE_NAME}.so`));
    assert.deepEqual(new Uint8Array(onDisk), program);
    const sha256 = createHash("sha256").update(onDisk).digest("hex");
    assert.equal(
      readFileSync(join(scratch, "dist", `${FIXTURE_NAME}.so.sha256`), "utf8"),
      `${sha256}  ${FIXTURE_NAME}.so\n`,
    );
    const info = JSON.parse(readFileSync(join(scratch, "dist", "build-info.json"), "utf8"));
    assert.equal(info.sbpfVersion, 3);
    assert.equal(info.sha256, sha256);
    assert.equal(info.bytes, onDisk.length);
    assert.match(info.toolchain.rustc, /^rustc 1\.\d+/);
    assert.match(info.toolchain.llc, /LLVM version 22/);
    for (const syscall of ["sol_log_", "sol_sha256", "sol_memcpy_", "sol_set_return_data"]) {
      assert.ok(info.syscalls.includes(syscall), syscall);
    }
  });

  test("logs a string from .rodata and returns the sha256 of a runtime-length copy of its input", async () => {
    // Given the program in a fresh SVM and a 150-byte payload
    const svm = await loadProgram();
    const payload = Uint8Array.from({ length: 150 }, (_, i) => (i * 7) & 0xff);

    // When it is asked to hash the payload
    const result = await invokeProgram(svm, svm.programId, Uint8Array.of(Op.HashPayload, ...payload));

    // Then the copy reached sol_sha256 intact, and the greeting was logged
    const expected = createHash("sha256").update(payload).digest();
    assert.deepEqual(Buffer.from(returnData(result)), expected);
    assert.ok(logsOf(result).includes("Program log: sample program: hello from rodata"));
  });

  test("calls through a table of function pointers (callx)", async () => {
    // Given the program in a fresh SVM
    const svm = await loadProgram();
    const cases: Array<[number, bigint, bigint]> = [
      [0, 21n, 42n],
      [1, 12n, 144n],
      [2, 0n, 2n ** 64n - 1n],
    ];
    for (const [index, input, output] of cases) {
      // When transform `index` is applied to `input`
      const result = await invokeProgram(
        svm,
        svm.programId,
        Uint8Array.of(Op.Transform, index, ...u64le(input)),
      );
      // Then the function at that index ran
      assert.equal(u64At(returnData(result), 0), output, `transform ${index}`);
    }
  });

  test("divides signed numbers and checks multiplications for overflow as Rust does", async () => {
    // Given the program in a fresh SVM
    const svm = await loadProgram();
    const third = (2n ** 64n - 1n) / 3n;
    const cases: Array<[bigint, bigint, bigint, bigint]> = [
      [-1000n, 7n, third, 2n],
      [7n, -2n, third, 4n],
      [-9223372036854775807n, -3n, 0n, 5n],
    ];
    for (const [dividend, divisor, left, right] of cases) {
      // When it computes dividend / divisor, dividend % divisor and left.checked_mul(right)
      const args = [dividend, divisor, left, right].flatMap((value) => [...u64le(value)]);
      const out = returnData(await invokeProgram(svm, svm.programId, Uint8Array.of(Op.Arithmetic, ...args)));

      // Then the results match Rust's (truncating division, remainder with the dividend's sign)
      assert.equal(i64At(out, 0), dividend / divisor);
      assert.equal(i64At(out, 8), dividend % divisor);
      const product = left * right;
      const fits = product < 2n ** 64n;
      assert.equal(out[24], fits ? 1 : 0);
      assert.equal(u64At(out, 16), fits ? product : 0n);
    }
  });

  test("fails with its custom error code", async () => {
    // Given the program in a fresh SVM
    const svm = await loadProgram();
    // When it is asked to fail
    const result = await invokeProgram(svm, svm.programId, Uint8Array.of(Op.Fail));
    // Then the transaction fails with Custom(FIXTURE_ERROR) after logging why
    assert.equal(customErrorCode(result), FIXTURE_ERROR);
    assert.ok(logsOf(result).includes("Program log: sample program: failing on purpose"));
  });

  test("deploys through the BPF upgradeable loader, which applies the strict ELF checks, and runs", async () => {
    // Given a funded SVM
    const funded = await createFundedSvm();
    // When the program is deployed the way `solana program deploy` does it
    const programId = await deployWithUpgradeableLoader(funded, program);
    // Then the deployed program runs
    const result = await invokeProgram(funded, programId, Uint8Array.of(Op.Transform, 0, ...u64le(5n)));
    assert.equal(u64At(returnData(result), 0), 10n);
  });

  test("a panic aborts the program and reports its location relative to the repository", async () => {
    // Given the program in a fresh SVM
    const svm = await loadProgram();
    // When it reads past the end of its input, then its bounds check panics and the program aborts
    const result = await invokeProgram(svm, svm.programId, Uint8Array.of(Op.ByteAt, 200));
    assert.ok(!(result instanceof TransactionMetadata));
    assert.match(result.toString(), /ProgramFailedToComplete/);
    // And the panic location is the crate path relative to the repository root
    assert.ok(logsOf(result).includes("Program log: tools/program-build/fixtures/sample-program/src/lib.rs"));
  });

  test("no absolute path of the build machine ends up in the program", () => {
    // Given the program bytes, then neither the checkout nor the build directory appears in them
    const text = Buffer.from(program).toString("latin1");
    assert.ok(!text.includes(REPO_ROOT), "repository path found in the program");
    assert.ok(!text.includes(scratch), "build directory found in the program");
  });
});

describe("buildProgram: SBPF v3 by default, v0 on request, under SIMD-0500", { skip }, () => {
  let scratch = "";
  let builds: Record<SbpfVersion, BuildProgramResult>;

  before(() => {
    scratch = mkdtempSync(join(tmpdir(), "program-build-versions-"));
    builds = { 0: buildFixture(join(scratch, "v0"), 0), 3: buildFixture(join(scratch, "v3")) };
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  const eFlags = (program: Uint8Array): number => Buffer.from(program).readUInt32LE(48);

  test("the default build is SBPF v3, the v0 build SBPF v0, and both compute the same results", async () => {
    assert.equal(eFlags(builds[3].program), 3);
    assert.equal(builds[3].buildInfo.sbpfVersion, 3);
    assert.equal(eFlags(builds[0].program), 0);
    for (const version of [0, 3] as const) {
      // Given the build in a fresh SVM
      const funded = await createFundedSvm();
      const programId = (await generateKeyPairSigner()).address;
      funded.svm.addProgram(programId, builds[version].program);
      // When it calls through its function table, then the result is the same
      const result = await invokeProgram(funded, programId, Uint8Array.of(Op.Transform, 1, ...u64le(12n)));
      assert.equal(u64At(returnData(result), 0), 144n, `v${version}`);
    }
  });

  test("v3 costs no more compute units than v0 for the same instruction", async () => {
    const requests = [
      Uint8Array.of(Op.HashPayload, ...Uint8Array.from({ length: 150 }, (_, i) => i)),
      Uint8Array.of(Op.Transform, 2, ...u64le(5n)),
      Uint8Array.of(Op.Arithmetic, ...[-1000n, 7n, 3n, 4n].flatMap((value) => [...u64le(value)])),
    ];
    const unitsOf = async (version: SbpfVersion): Promise<bigint[]> => {
      const funded = await createFundedSvm();
      const programId = (await generateKeyPairSigner()).address;
      funded.svm.addProgram(programId, builds[version].program);
      const units: bigint[] = [];
      for (const data of requests) {
        const result = await invokeProgram(funded, programId, data);
        assert.ok(result instanceof TransactionMetadata, logsOf(result).join("\n"));
        units.push(result.computeUnitsConsumed());
      }
      return units;
    };
    const [v0, v3] = [await unitsOf(0), await unitsOf(3)];
    v3.forEach((units, i) =>
      assert.ok(units <= (v0[i] ?? 0n), `request ${i}: v3 ${units} CU, v0 ${v0[i]} CU`),
    );
  });

  test("with SIMD-0500 active, the v3 build deploys through the upgradeable loader and runs", async () => {
    // Given a runtime where SIMD-0500 stops v0/v1/v2 deployments
    const funded = await createFundedSvm({ simd0500: true });
    // When the v3 program is deployed by InitializeBuffer, Write and DeployWithMaxDataLen
    const programId = await deployWithUpgradeableLoader(funded, builds[3].program);
    // Then it runs
    const result = await invokeProgram(funded, programId, Uint8Array.of(Op.Transform, 0, ...u64le(5n)));
    assert.equal(u64At(returnData(result), 0), 10n);
  });

  test("with SIMD-0500 active, the v0 build is refused at DeployWithMaxDataLen with InvalidAccountData", async () => {
    const funded = await createFundedSvm({ simd0500: true });
    await assert.rejects(
      deployWithUpgradeableLoader(funded, builds[0].program),
      (error: Error) =>
        /DeployWithMaxDataLen failed/.test(error.message) &&
        /InvalidAccountData/.test(error.message) &&
        error.message.includes("Detected sbpf_version required by the executable which are not enabled"),
    );
  });

  test("for v0 the deploy check is stricter than addProgram: a misplaced .rodata is refused", async () => {
    // Given the v0 program with .rodata's sh_addr moved off its sh_offset (broken, but lenient-loadable)
    const broken = Uint8Array.from(builds[0].program);
    const view = new DataView(broken.buffer);
    const sectionHeaders = Number(view.getBigUint64(40, true));
    const rodataAddr = sectionHeaders + 2 * 64 + 16;
    view.setBigUint64(rodataAddr, view.getBigUint64(rodataAddr, true) + 8n, true);
    const funded = await createFundedSvm();
    // When it is added directly, then litesvm's lenient loader accepts it
    funded.svm.addProgram((await generateKeyPairSigner()).address, broken);
    // When it is deployed, then the loader refuses it
    await assert.rejects(deployWithUpgradeableLoader(funded, broken), /DeployWithMaxDataLen failed/);
  });
});

describe("buildProgram: reproducibility", { skip }, () => {
  test("two builds in different directories produce the same bytes", () => {
    // Given two independent scratch directories
    const first = mkdtempSync(join(tmpdir(), "program-build-a-"));
    const second = mkdtempSync(join(tmpdir(), "program-build-b-"));
    try {
      // When the fixture is built in each
      const a = buildFixture(first);
      const b = buildFixture(second);
      // Then the programs are byte-for-byte identical
      assert.equal(a.sha256, b.sha256);
      assert.deepEqual(a.program, b.program);
    } finally {
      rmSync(first, { recursive: true, force: true });
      rmSync(second, { recursive: true, force: true });
    }
  });
});
