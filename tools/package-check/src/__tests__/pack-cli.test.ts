/**
 * `npm run pack:packages`, as the docs give it to a project outside the repository: the packages
 * packed into a folder, and the printed `npm install` line run as printed in a fresh project, whose
 * plain `node` then imports the SDK.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, describe, it } from "node:test";
import { promisify } from "node:util";

import { createOutsideProject } from "../outside-project.js";
import { PUBLISHED_PACKAGES, REPO_ROOT } from "../published-packages.js";

const run = promisify(execFile);

describe("npm run pack:packages", () => {
  const root = mkdtempSync(join(tmpdir(), "abas-pack-cli-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  it("packs every published package into the folder and prints an install line that works as printed", async () => {
    // When the packages are packed into a folder outside the repository, whose name a shell splits
    const folder = join(root, "abas packages");
    const { stdout, stderr } = await run("npm", ["run", "--silent", "pack:packages", "--", folder], {
      cwd: REPO_ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });

    // Then it told which package it was building as it went, each once, counted
    const progress = stderr
      .split("\n")
      .map((text) => /^ {2}\[(\d+)\/(\d+)\] building (\S+) \(\d+ s\)$/.exec(text))
      .filter((match) => match !== null);
    assert.deepEqual(
      progress.map(([, done, total]) => `${done}/${total}`),
      PUBLISHED_PACKAGES.map((_, index) => `${index + 1}/${PUBLISHED_PACKAGES.length}`),
      stderr,
    );
    assert.deepEqual(progress.map(([, , , name]) => name).sort(), [...PUBLISHED_PACKAGES].sort());

    // And the printed install line names one tarball per published package, each in the folder,
    // as a shell reads it
    const line = stdout.split("\n").find((text) => text.trim().startsWith("npm install "));
    assert.ok(line, stdout);
    const { stdout: words } = await run("sh", [
      "-c",
      `printf '%s\\n' ${line.trim().slice("npm install ".length)}`,
    ]);
    const tarballs = words.trim().split("\n");
    assert.equal(tarballs.length, PUBLISHED_PACKAGES.length);
    for (const tarball of tarballs) {
      assert.equal(dirname(tarball), folder);
      assert.ok(existsSync(tarball), tarball);
    }

    // And that line, run as printed by a shell in a new project, installs packages plain node can use
    const project = await createOutsideProject(join(root, "project"), []);
    await project.exec("sh", ["-c", line.trim()]);
    const { stdout: hash } = await project.exec("node", [
      "--input-type=module",
      "-e",
      'import { AttestationClient } from "@abas/sdk"; console.log(await AttestationClient.hashAction("{}"));',
    ]);
    assert.match(hash.trim(), /^[0-9a-f]{64}$/);
  });

  it("names a folder it cannot create, with exit code 1, before packing anything", async () => {
    const underAFile = join(root, "a-file");
    writeFileSync(underAFile, "");
    await assert.rejects(
      run("npm", ["run", "--silent", "pack:packages", "--", join(underAFile, "packages")], {
        cwd: REPO_ROOT,
      }),
      (error: { code?: number; stderr?: string }) =>
        error.code === 1 &&
        (error.stderr ?? "").startsWith(
          `pack:packages: cannot create ${join(underAFile, "packages")}: ENOTDIR`,
        ),
    );
  });

  it("refuses an option it does not know, with its usage and exit code 2", async () => {
    await assert.rejects(
      run("npm", ["run", "--silent", "pack:packages", "--", "--json"], { cwd: REPO_ROOT }),
      (error: { code?: number; stderr?: string }) =>
        error.code === 2 && /usage: npm run pack:packages \[-- <folder>\]/.test(error.stderr ?? ""),
    );
  });
});
