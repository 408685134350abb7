/**
 * RFC 9457 problem documents for ABAS_API errors: the HTTP status of each code, a stable `type`
 * and `title` derived from the code's name, and the formatted message as `detail`.
 */
import type { ApiProblem } from "@abas/api-contract";
import * as errors from "@abas/errors";
import { ERROR_CODE_RANGES, getAbasErrorMessage, type AbasErrorCode } from "@abas/errors";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

/** ABAS_API code -> constant name, from the errors package itself (so it never drifts). */
const API_CODE_NAMES: ReadonlyMap<number, string> = new Map(
  Object.entries(errors).flatMap(([name, code]) =>
    name.startsWith("ABAS_API__") && typeof code === "number" ? [[code, name] as const] : [],
  ),
);

export function getApiErrorName(code: number): string | undefined {
  return API_CODE_NAMES.get(code);
}

export function isApiErrorCode(code: number): code is AbasErrorCode {
  return (
    API_CODE_NAMES.has(code) &&
    code >= ERROR_CODE_RANGES.ABAS_API.min &&
    code <= ERROR_CODE_RANGES.ABAS_API.max
  );
}

/** The HTTP status of an API error code, by its hundred; undefined for codes no route returns. */
export function httpStatusOf(code: number): number | undefined {
  if (!isApiErrorCode(code)) return undefined;
  const block = Math.floor(code / 100) * 100;
  const statusByBlock: Record<number, number> = {
    4000: 400,
    4100: 401,
    4200: 429,
    4300: 404,
    4400: 503,
    4500: 500,
  };
  return statusByBlock[block];
}

/** `ABAS_API__API_KEY_REVOKED` -> "API key revoked". */
function titleOf(name: string): string {
  const words = name
    .slice(name.indexOf("__") + 2)
    .toLowerCase()
    .split("_");
  const text = words.map((word) => (word === "api" ? "API" : word)).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** `ABAS_API__INVALID_CURSOR` -> "urn:abas:error:invalid-cursor". */
function typeOf(name: string): string {
  return `urn:abas:error:${name
    .slice(name.indexOf("__") + 2)
    .toLowerCase()
    .replaceAll("_", "-")}`;
}

export function buildProblem(
  code: AbasErrorCode,
  context: Readonly<Record<string, unknown>>,
  requestId: string,
  status = httpStatusOf(code) ?? 500,
): ApiProblem {
  const name = getApiErrorName(code) ?? "ABAS_API__INTERNAL_ERROR";
  const publicContext = Object.fromEntries(Object.entries(context).filter(([key]) => key !== "__code"));
  return {
    type: typeOf(name),
    title: titleOf(name),
    status,
    detail: getAbasErrorMessage(code, publicContext),
    code,
    name,
    requestId,
    ...(Object.keys(publicContext).length > 0 ? { context: publicContext } : {}),
  };
}
