/**
 * Bundles the `abas` command into `dist/abas.js`: the code of the ABAS workspace packages it uses
 * (sdk, db, indexer, server, …) is inlined, every other package stays an import and must be one of
 * this package's `dependencies`, at the same version range as the workspace package that uses it.
 * Fails otherwise, so the published package installs everything it imports and nothing private.
 *
 *   npm run build -w @abas/cli
 */
import { chmodSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

import { build, type Plugin } from "esbuild";

const packageDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const workspaceDir = join(packageDir, "..", "..");
const outfile = join(packageDir, "dist", "abas.js");

type Manifest = { name: string; dependencies?: Record<string, string> };
const readManifest = (dir: string): Manifest =>
  JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;

const workspaceManifests = readdirSync(join(workspaceDir, "packages")).map((name) =>
  readManifest(join(workspaceDir, "packages", name)),
);
const manifest = readManifest(packageDir);

/** `@scope/name/sub/path` -> `@scope/name`, `name/sub` -> `name`. */
const packageName = (specifier: string): string =>
  specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");

const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

/** Inlines `@abas/*` (from their TypeScript sources) and leaves every other package external. */
const externalThirdParty: Plugin = {
  name: "external-third-party",
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[^./#]/ }, (args) => {
      if (args.path.startsWith("@abas/") || builtins.has(args.path)) return undefined;
      return { path: args.path, external: true };
    });
  },
};

rmSync(join(packageDir, "dist"), { recursive: true, force: true });
const result = await build({
  entryPoints: [join(packageDir, "src", "bin.ts")],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  conditions: ["abas-source"],
  sourcemap: true,
  metafile: true,
  plugins: [externalThirdParty],
  logLevel: "warning",
});

const imported = new Set(
  Object.values(result.metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.external && !builtins.has(entry.path))
    .map((entry) => packageName(entry.path)),
);
const declared = manifest.dependencies ?? {};
const problems: string[] = [];
for (const name of [...imported].sort()) {
  const range = declared[name];
  if (range === undefined) {
    problems.push(`${name} is imported but not in dependencies`);
    continue;
  }
  for (const workspace of workspaceManifests) {
    const used = workspace.dependencies?.[name];
    if (used !== undefined && used !== range) {
      problems.push(`${name} is ${range} here but ${used} in ${workspace.name}`);
    }
  }
}
for (const name of Object.keys(declared)) {
  if (!imported.has(name)) problems.push(`${name} is in dependencies but the bundle does not import it`);
}
if (problems.length > 0) throw new Error(`dependencies of ${manifest.name}:\n  ${problems.join("\n  ")}`);

chmodSync(outfile, 0o755);
console.log(
  `built ${relative(process.cwd(), outfile)} importing ${imported.size} packages: ${[...imported].join(", ")}`,
);
