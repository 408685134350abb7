/**
 * Renders the IDL's two artefacts, `program/idl.json` and the generated client, into a folder
 * tree, formatted with the repository's Prettier settings so they pass `prettier --check`.
 */
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { renderVisitor } from "@codama/renderers-js";
import { createFromRoot } from "codama";
import { format, resolveConfig } from "prettier";

import { buildAbasIdl } from "./abas-idl.js";

export const REPOSITORY_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const IDL_JSON = "program/idl.json";
const CLIENT_PACKAGE = "packages/program-client";
const GENERATED = `${CLIENT_PACKAGE}/src/generated`;

async function formatted(path: string, text: string): Promise<string> {
  const options = (await resolveConfig(join(REPOSITORY_ROOT, path))) ?? {};
  return await format(text, { ...options, filepath: path });
}

/** Writes both artefacts under `root` (the repository, or a scratch copy to compare with it). */
async function renderInto(root: string): Promise<void> {
  const codama = createFromRoot(buildAbasIdl());
  await writeFile(join(root, IDL_JSON), await formatted(IDL_JSON, codama.getJson()));
  const generated = join(root, GENERATED);
  await codama.accept(
    renderVisitor(join(root, CLIENT_PACKAGE), {
      generatedFolder: "src/generated",
      deleteFolderBeforeRendering: true,
      formatCode: false,
      syncPackageJson: false,
      kitImportStrategy: "rootOnly",
      // Addresses through the package's fast base58 (src/fast-addresses.ts), the rest from kit.
      dependencyMap: { solanaAddresses: "../../kit-with-fast-addresses" },
    }),
  );
  for (const file of await listFiles(generated)) {
    const source = adaptToRepository(await readFile(join(generated, file), "utf8"), generated, file);
    await writeFile(join(generated, file), await formatted(join(GENERATED, file), source));
  }
}

/**
 * Adapts the renderer's output to the repository's compiler settings, which the generated code must
 * pass like any other: relative imports name their file (`NodeNext`: `"../pdas/index.js"`), type-only
 * imports say so (`verbatimModuleSyntax`: the renderer imports `AgentSeeds` as a value), and the
 * program plugin's return type is left to inference (kit's `extendClient` returns an equivalent
 * mapped type that TypeScript cannot prove assignable to the annotation).
 */
function adaptToRepository(source: string, generated: string, file: string): string {
  // A module of the rendering, or one of the package's own beside it (kit-with-fast-addresses.ts).
  const isFile = (specifier: string): boolean =>
    [generated, join(REPOSITORY_ROOT, GENERATED)].some((folder) =>
      existsSync(`${resolve(dirname(join(folder, file)), specifier)}.ts`),
    );
  return source
    .replace(/from ['"](\.{1,2}(?:\/[^'"]*)?)['"]/g, (_, specifier: string) => {
      const path = isFile(specifier) ? `${specifier}.js` : `${specifier.replace(/\/$/, "")}/index.js`;
      return `from "${path}"`;
    })
    .replace(/import \{([^}]*)\} from/g, (_, names: string) => {
      const typed = names.replace(/(^|[\s,])([A-Z]\w*Seeds)\b/g, "$1type $2");
      return `import {${typed}} from`;
    })
    .replace(/\(client: T\): Omit<T, "\w+"> & \{ \w+: \w+ \} =>/g, "(client: T) =>");
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(folder, join(entry.parentPath, entry.name)))
    .sort();
}

async function readOrUndefined(path: string): Promise<string | undefined> {
  return await readFile(path, "utf8").catch(() => undefined);
}

export async function renderIdl(): Promise<void> {
  await renderInto(REPOSITORY_ROOT);
}

/** The committed files that differ from a fresh rendering, missing ones and extra ones included. */
export async function stalePaths(): Promise<string[]> {
  const scratch = await mkdtemp(join(tmpdir(), "abas-idl-"));
  try {
    await mkdir(join(scratch, "program"));
    await renderInto(scratch);
    const fresh = [IDL_JSON, ...(await listFiles(join(scratch, GENERATED))).map((f) => join(GENERATED, f))];
    const committed = (await listFiles(join(REPOSITORY_ROOT, GENERATED)).catch(() => [])).map((f) =>
      join(GENERATED, f),
    );
    const stale: string[] = [];
    for (const path of new Set([...fresh, ...committed])) {
      const [want, have] = await Promise.all([
        readOrUndefined(join(scratch, path)),
        readOrUndefined(join(REPOSITORY_ROOT, path)),
      ]);
      if (want !== have) stale.push(path);
    }
    return stale.sort();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
