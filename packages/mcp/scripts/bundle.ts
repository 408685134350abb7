/**
 * Bundles the MCP server into one file, `dist/abas-mcp.js`, with every dependency inlined: the
 * published package has no runtime dependencies, so `npx -y @abas/mcp` downloads one tarball and
 * starts at once. Fails if anything but a Node.js built-in module is left to import at run time.
 *
 *   npm run build -w @abas/mcp
 */
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(packageDir, "dist", "abas-mcp.js");

// CommonJS dependencies bundled into an ES module still call `require` for Node.js built-ins.
const banner = [
  "#!/usr/bin/env node",
  'import { createRequire as __abasCreateRequire } from "node:module";',
  "const require = __abasCreateRequire(import.meta.url);",
].join("\n");

rmSync(join(packageDir, "dist"), { recursive: true, force: true });
const started = performance.now();
const result = await build({
  entryPoints: [join(packageDir, "src", "bin.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // The ABAS workspace packages from their TypeScript sources (see docs/packages.md).
  conditions: ["abas-source"],
  banner: { js: banner },
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "eof",
  metafile: true,
  logLevel: "warning",
});

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const externals = Object.values(result.metafile.outputs)
  .flatMap((output) => output.imports)
  .filter((imported) => imported.external && !builtins.has(imported.path))
  .map((imported) => imported.path);
if (externals.length > 0) {
  throw new Error(`the bundle would need these packages at run time: ${[...new Set(externals)].join(", ")}`);
}

/** The license notice of every package the bundle includes code from (workspace packages are ours). */
function thirdPartyLicenses(inputs: readonly string[]): string {
  const packageDirs = new Set<string>();
  for (const input of inputs) {
    const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (match) packageDirs.add(match[1]!);
  }
  const notices = new Map<string, string>();
  for (const dir of [...packageDirs].sort()) {
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      name: string;
      version: string;
      license?: string;
    };
    const licenseFile = readdirSync(dir).find((name) => /^(licen[cs]e|copying)/i.test(name));
    const text = licenseFile
      ? readFileSync(join(dir, licenseFile), "utf8").trim()
      : `License: ${manifest.license}`;
    const id = `${manifest.name}@${manifest.version}`;
    notices.set(id, `${id} (${manifest.license ?? "see below"})\n\n${text}\n`);
  }
  const sorted = [...notices.keys()].sort().map((id) => notices.get(id)!);
  return `abas-mcp.js bundles code from these packages:\n\n${sorted.join(`\n${"-".repeat(72)}\n\n`)}`;
}

const inputs = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
const resolvedInputs = inputs.map((input) => join(process.cwd(), input)).filter((input) => existsSync(input));
writeFileSync(join(packageDir, "dist", "THIRD-PARTY-LICENSES.txt"), thirdPartyLicenses(resolvedInputs));

chmodSync(outfile, 0o755);
const { bytes } = result.metafile.outputs[relative(process.cwd(), outfile)] ?? { bytes: NaN };
const size = Number.isNaN(bytes) ? "" : ` (${(bytes / 1024).toFixed(0)} KiB)`;
console.log(
  `built ${relative(process.cwd(), outfile)}${size} in ${Math.round(performance.now() - started)} ms`,
);
