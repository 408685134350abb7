/**
 * `npm run idl`: writes `program/idl.json` and renders the kit client of `@abas/program-client` into
 * `packages/program-client/src/generated/`, both from `abas-idl.ts`.
 * `npm run idl -- --check`: writes nothing, and fails when the committed files differ from what the
 * IDL gives (an IDL edited without regenerating, or generated files edited by hand).
 */
import { renderIdl, stalePaths } from "./render-idl.js";

const check = process.argv.includes("--check");

if (check) {
  const stale = await stalePaths();
  if (stale.length > 0) {
    console.error(`stale, run \`npm run idl\`:\n${stale.map((path) => `  ${path}`).join("\n")}`);
    process.exit(1);
  }
  console.log("program/idl.json and the generated client are up to date");
} else {
  await renderIdl();
  console.log("wrote program/idl.json and packages/program-client/src/generated/");
}
