import * as codes from "../codes.js";
import type { AbasErrorCode } from "../codes.js";

/** Every exported `<DOMAIN>__<DESCRIPTION>` constant of codes.ts, as [name, code]. */
export const ALL_CODES: ReadonlyArray<readonly [name: string, code: AbasErrorCode]> = Object.entries(codes)
  .filter(([name]) => /^[A-Z]+_[A-Z]+__/.test(name))
  .map(([name, code]) => [name, code as AbasErrorCode] as const);

/** The domain of a constant name: what precedes its double underscore. */
export function domainOf(constantName: string): string {
  return constantName.slice(0, constantName.indexOf("__"));
}
