import * as codes from "./codes.js";

const CODE_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(codes)
    .filter(([name, value]) => /^ABAS_[A-Z]+__/.test(name) && typeof value === "number")
    .map(([name, value]) => [value as number, name]),
);

/** `ABAS_PROGRAM__AGENT_SUSPENDED` for 1202; `ABAS_ERROR_<code>` for a code this version does not know. */
export function getAbasErrorCodeName(code: number): string {
  return CODE_NAMES.get(code) ?? `ABAS_ERROR_${code}`;
}
