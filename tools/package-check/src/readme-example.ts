/**
 * The code of the root README's "Use ABAS from your own project" section, so the test runs
 * exactly what the README shows: its `npm install` line and its JavaScript file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

import { REPO_ROOT } from "./published-packages.js";

export const README_SECTION = "## Use ABAS from your own project";

export interface ReadmeExample {
  /** The packages of the section's `npm install …` line. */
  readonly installs: readonly string[];
  /** The section's JavaScript file name (from its first line comment) and text. */
  readonly fileName: string;
  readonly code: string;
}

export function readReadmeExample(): ReadmeExample {
  const readme = readFileSync(join(REPO_ROOT, "README.md"), "utf8");
  const start = readme.indexOf(README_SECTION);
  if (start === -1) throw new Error(`README.md has no "${README_SECTION}" section`);
  const end = readme.indexOf("\n## ", start + README_SECTION.length);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const install = /^npm install (.+)$/m.exec(section);
  const code = /```js\n([\s\S]*?)```/.exec(section);
  if (!install || !code)
    throw new Error(`the README section "${README_SECTION}" lacks its npm install line or js block`);
  const fileName = /^\/\/ (\S+\.mjs)/.exec(code[1]!);
  if (!fileName) throw new Error("the README's js block does not start with a `// <name>.mjs` comment");
  return { installs: install[1]!.trim().split(/\s+/), fileName: fileName[1]!, code: code[1]! };
}
