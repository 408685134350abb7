/**
 * The environment of a user's shell: this process's, without what the repository's npm scripts
 * add (`NODE_OPTIONS=--conditions=abas-source` from `.npmrc`, `npm_*` variables, the workspace's
 * `node_modules/.bin` on PATH), so what runs in the outside project finds and resolves the installed
 * packages as a user's shell does.
 */
export function userEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name === "NODE_OPTIONS" || name.toLowerCase().startsWith("npm_")) continue;
    env[name] = value;
  }
  env.PATH = (env.PATH ?? "")
    .split(":")
    .filter((dir) => !dir.includes("/node_modules/.bin"))
    .join(":");
  return { ...env, ...extra };
}
