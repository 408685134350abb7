/**
 * `npm run pack:packages [-- <folder>]`: packs every published package (`npm pack`, which builds
 * it) into `<folder>` (default `abas-packages/` in the directory npm was run from) and prints the
 * `npm install` line that installs them into another project. The packages are not on the npm
 * registry yet: this is how a project outside the repository gets them.
 */
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";

import { packPublishedPackages, PUBLISHED_PACKAGES } from "./published-packages.js";

const DEFAULT_FOLDER = "abas-packages";

/** `path` as one word of a POSIX shell command: as it is when that is safe, else single-quoted. */
function shellWord(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}

async function main(args: readonly string[]): Promise<number> {
  if (args.length > 1 || args[0]?.startsWith("-")) {
    console.error("usage: npm run pack:packages [-- <folder>]");
    return 2;
  }
  const folder = resolve(process.env.INIT_CWD ?? process.cwd(), args[0] ?? DEFAULT_FOLDER);
  try {
    mkdirSync(folder, { recursive: true });
  } catch (error) {
    console.error(`pack:packages: cannot create ${folder}: ${(error as Error).message}`);
    return 1;
  }
  const total = PUBLISHED_PACKAGES.length;
  console.error(`Packing ${total} packages into ${folder} (each is built first)...`);
  const started = Date.now();
  let building = 0;
  const packed = await packPublishedPackages(folder, {
    onBuilding: (name) => {
      building += 1;
      const seconds = Math.round((Date.now() - started) / 1000);
      console.error(`  [${building}/${total}] building ${name} (${seconds} s)`);
    },
  });
  const tarballs = PUBLISHED_PACKAGES.map((name) => packed.get(name)!.tarball);
  console.log(
    [
      `Packed into ${folder} in ${Math.round((Date.now() - started) / 1000)} s:`,
      ...PUBLISHED_PACKAGES.map((name) => `  ${name.padEnd(22)} ${packed.get(name)!.tarball}`),
      "",
      "In your project, install them together (npm finds each @abas/ dependency among them):",
      `  npm install ${tarballs.map(shellWord).join(" ")}`,
    ].join("\n"),
  );
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
