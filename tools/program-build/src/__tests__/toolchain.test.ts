import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { ensureToolchain, TOOLCHAIN_INSTALL_COMMAND, ToolchainMissingError } from "../toolchain.js";

describe("toolchain", () => {
  test("the install command is the one the docs give", () => {
    assert.equal(TOOLCHAIN_INSTALL_COMMAND, "apt-get install -y rustc-web libstd-rust-web-dev-bpf llvm-22");
  });

  test("a missing tool is reported with the install command when not running as root", () => {
    // Given a PATH without the LLVM tools
    const emptyPath = mkdtempSync(join(tmpdir(), "empty-path-"));
    const savedPath = process.env.PATH;
    process.env.PATH = emptyPath;
    try {
      // When the toolchain is required by a non-root user, then nothing is installed and the error says how
      const logged: string[] = [];
      assert.throws(
        () => ensureToolchain((line) => logged.push(line), { runningAsRoot: false }),
        (error: unknown) =>
          error instanceof ToolchainMissingError &&
          error.missing.includes("llc-22") &&
          error.message.includes(TOOLCHAIN_INSTALL_COMMAND),
      );
      assert.deepEqual(logged, []);
    } finally {
      process.env.PATH = savedPath;
      rmSync(emptyPath, { recursive: true, force: true });
    }
  });
});
