/**
 * Checks a response body against its schema in the contract and names the first mismatch by its
 * JSON Pointer (RFC 6901), so a client can say which field of an answer it could not trust.
 */
import type { TSchema } from "@sinclair/typebox";
// The errors module alone: the value module (casts, conversions, ...) would weigh on bundles.
import { Errors, ValueErrorType, type ValueError } from "@sinclair/typebox/errors";

import "./string-formats.js";

export interface ContractMismatch {
  /** Where: a JSON Pointer into the body, `""` for the body itself (e.g. `/data/0/slot`). */
  readonly path: string;
  /** What the contract expects there, and what the body holds instead. */
  readonly message: string;
}

/** The variant of a union that got furthest into the value, when one did: its error says more. */
function innermost(error: ValueError): ValueError {
  if (error.type !== ValueErrorType.Union) return error;
  let deepest = error;
  for (const variant of error.errors) {
    const first = variant.First();
    if (first !== undefined && first.path.length > deepest.path.length) deepest = innermost(first);
  }
  return deepest;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (value === undefined) return "nothing";
  return typeof value === "object" ? "an object" : `${typeof value} ${JSON.stringify(value).slice(0, 40)}`;
}

/** `"single"`, `null`, `object`: how one variant of a union reads in a message. */
function variantName(schema: TSchema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  return typeof schema.type === "string" ? schema.type : "another shape";
}

function expectation(error: ValueError): string {
  const allowed = (error.schema as { enum?: unknown }).enum;
  if (Array.isArray(allowed)) return `expected one of ${allowed.join(", ")}`;
  const variants = (error.schema as { anyOf?: TSchema[] }).anyOf;
  if (error.type === ValueErrorType.Union && variants !== undefined) {
    return `expected ${variants.map(variantName).join(" or ")}`;
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) return "expected a value (required)";
  return error.message.charAt(0).toLowerCase() + error.message.slice(1);
}

/** The first place where `body` does not match `schema`; undefined when it matches. */
export function findContractMismatch(schema: TSchema, body: unknown): ContractMismatch | undefined {
  const first = Errors(schema, body).First();
  if (first === undefined) return undefined;
  const error = innermost(first);
  return { path: error.path, message: `${expectation(error)}, got ${kindOf(error.value)}` };
}
