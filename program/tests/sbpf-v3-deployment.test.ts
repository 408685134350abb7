/**
 * Why the program ships as SBPF v3: SIMD-0500 (`disable_sbpf_v0_v1_v2_deployment`) makes the
 * Upgradeable Loader refuse to deploy or upgrade v0, v1 and v2 programs. With it active, the v3
 * build deploys and upgrades through the loader's own instructions; the v0 build of the same
 * sources is refused.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import {
  buildProgram,
  DISABLE_SBPF_V0_V1_V2_DEPLOYMENT_FEATURE,
  locateToolchain,
  missingToolchainParts,
} from "@abas/program-build";
import { buildInitializeInstruction, decodeAgentAccount } from "@abas/program-client";
import { address, getAddressEncoder } from "@solana/kit";
import { FeatureSet } from "litesvm";

import {
  attest,
  createTestLedger,
  expectSuccess,
  hashPayload,
  readAccount,
  readProgramBytes,
  registerAgent,
  send,
  type TestLedger,
} from "./harness.js";
import { upgradeWithUpgradeableLoader } from "./upgradeable-loader.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BUILD_INFO = fileURLToPath(new URL("../dist/build-info.json", import.meta.url));
const REFUSED_VERSION_LOG = "Detected sbpf_version required by the executable which are not enabled";

const missingTools = missingToolchainParts();
const skip = missingTools.length > 0 ? `the v0 build needs ${missingTools.join(", ")}` : false;

/** litesvm's full feature set, in which SIMD-0500 is active. */
function featuresWithSimd0500(): FeatureSet {
  const features = FeatureSet.allEnabled();
  const simd0500 = Uint8Array.from(
    getAddressEncoder().encode(address(DISABLE_SBPF_V0_V1_V2_DEPLOYMENT_FEATURE)),
  );
  assert.ok(features.isActive(simd0500), "SIMD-0500 is active");
  return features;
}

const eFlags = (program: Uint8Array): number =>
  new DataView(program.buffer, program.byteOffset).getUint32(48, true);

/** initialize, register_agent and attest through the deployed program; returns the agent's attestation count. */
async function useProgram(ledger: TestLedger, label: string): Promise<bigint> {
  expectSuccess(
    await send(ledger, [
      await buildInitializeInstruction({ programId: ledger.programId, authority: ledger.payer }),
    ]),
  );
  const registered = await registerAgent(ledger);
  await attest(ledger, { ...registered, storedHash: hashPayload({ label }) });
  return decodeAgentAccount(readAccount(ledger, registered.agentAccount).data).attestationCount;
}

describe("SBPF v3 under SIMD-0500", { skip }, () => {
  let scratch = "";
  let v0Program: Uint8Array;
  const v3Program = readProgramBytes();

  before(() => {
    // The v0 build of the same sources, as the build emitted it before v3
    scratch = mkdtempSync(join(tmpdir(), "abas-sbpf-v0-"));
    v0Program = buildProgram({
      toolchain: locateToolchain(),
      crateRoot: join(REPO_ROOT, "program", "src", "lib.rs"),
      crateName: "abas_attestation",
      outDir: join(scratch, "dist"),
      workDir: join(scratch, "work"),
      sourceRoot: REPO_ROOT,
      sbpfVersion: 0,
    }).program;
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test("the committed program is SBPF v3, its build variant v0", () => {
    assert.equal(eFlags(v3Program), 3);
    assert.equal(JSON.parse(readFileSync(BUILD_INFO, "utf8")).sbpfVersion, 3);
    assert.equal(eFlags(v0Program), 0);
  });

  test("with SIMD-0500 active, the v3 program deploys through the Upgradeable Loader, runs, upgrades and runs again", async () => {
    // Given a runtime with SIMD-0500 active, when the v3 program is deployed by buffer, Write and DeployWithMaxDataLen
    const ledger = await createTestLedger({
      initialize: false,
      featureSet: featuresWithSimd0500(),
    });
    const { deployment } = ledger;
    // Then initialize, register_agent and attest run on it
    assert.equal(await useProgram(ledger, "deployed"), 1n);

    // When it is upgraded through a new buffer and the loader's Upgrade instruction
    const upgradeSlot = await upgradeWithUpgradeableLoader(
      ledger.svm,
      ledger.payer,
      ledger.programId,
      v3Program,
    );

    // Then ProgramData records the upgrade slot and holds the v3 bytes, and the program still runs
    const programData = readAccount(ledger, deployment.programData).data;
    assert.ok(upgradeSlot > deployment.deploySlot);
    assert.equal(new DataView(programData.buffer).getBigUint64(4, true), upgradeSlot);
    assert.deepEqual(programData.subarray(45, 45 + v3Program.length), v3Program);
    const registered = await registerAgent(ledger);
    await attest(ledger, { ...registered, storedHash: hashPayload({ after: "upgrade" }) });
  });

  test("with SIMD-0500 active, the v0 build is refused: DeployWithMaxDataLen fails with InvalidAccountData", async () => {
    await assert.rejects(
      createTestLedger({
        featureSet: featuresWithSimd0500(),
        programBytes: v0Program,
      }),
      (error: Error) =>
        /deploy transaction (\d+) of \1/.test(error.message) &&
        error.message.includes("InvalidAccountData") &&
        error.message.includes(REFUSED_VERSION_LOG),
    );
  });

  test("with SIMD-0500 active, upgrading the v3 program to the v0 build fails with InvalidAccountData", async () => {
    // Given the v3 program deployed with room for the larger v0 build
    const ledger = await createTestLedger({
      featureSet: featuresWithSimd0500(),
      maxDataLen: BigInt(Math.max(v0Program.length, v3Program.length)),
    });
    // When it is upgraded to the v0 build, then the loader refuses the v0 ELF
    await assert.rejects(
      upgradeWithUpgradeableLoader(ledger.svm, ledger.payer, ledger.programId, v0Program),
      (error: Error) =>
        /upgrade transaction (\d+) of \1/.test(error.message) &&
        error.message.includes("InvalidAccountData") &&
        error.message.includes(REFUSED_VERSION_LOG),
    );
  });

  test("without SIMD-0500 (litesvm's mainnet features), the v0 build still deploys: the feature is what refuses it", async () => {
    const ledger = await createTestLedger({
      initialize: false,
      programBytes: v0Program,
    });
    assert.equal(await useProgram(ledger, "v0 without SIMD-0500"), 1n);
  });
});
