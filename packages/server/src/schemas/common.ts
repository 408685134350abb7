/** Schema pieces every route shares: identifiers, enums, the problem document, security. */
import { Type, type TSchema, type TUnsafe } from "@sinclair/typebox";

/** Base58 text of a 32-byte public key or account address. */
export const ADDRESS_PATTERN = "^[1-9A-HJ-NP-Za-km-z]{32,44}$";

export const Address = (description: string) => Type.String({ pattern: ADDRESS_PATTERN, description });

/**
 * A string enum that validates and documents as `{ type: "string", enum: [...] }`. Its type
 * carries both TypeBox 0.34's static type and the plain JSON Schema shape, from which the Fastify
 * type provider (TypeBox 1.x) infers request types.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> & { type: "string"; enum: T } {
  return Type.Unsafe<T[number]>({ type: "string", enum: values, ...options }) as TUnsafe<T[number]> & {
    type: "string";
    enum: T;
  };
}

export const ACTION_TYPE_NAMES = ["Transaction", "ToolCall", "Decision", "ModelInvocation"] as const;
export const ActionTypeName = StringEnum(ACTION_TYPE_NAMES, { description: "What the attested action is" });

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** RFC 9457 problem details, with the ABAS error code. */
export const Problem = Type.Object(
  {
    type: Type.String({
      description: "A stable URI naming the kind of problem",
      examples: ["urn:abas:error:invalid-cursor"],
    }),
    title: Type.String({ description: "A short summary of that kind of problem" }),
    status: Type.Integer({ description: "The HTTP status code" }),
    detail: Type.String({ description: "What went wrong with this request" }),
    code: Type.Integer({
      description: "The numeric ABAS error code (4000-4999 for the API)",
      examples: [4001],
    }),
    name: Type.String({ description: "The stable name of the code", examples: ["ABAS_API__INVALID_CURSOR"] }),
    requestId: Type.String({ description: "The id under which the server logged this request" }),
    context: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "The values the detail was built from" }),
    ),
  },
  { description: "An RFC 9457 problem document (application/problem+json)" },
);

const PROBLEM_DESCRIPTIONS: Record<number, string> = {
  400: "A parameter is invalid, or the request itself is malformed",
  401: "The API key is missing, malformed, unknown or revoked",
  404: "Nothing matches the id",
  429: "The API key's rate limit is reached; see Retry-After",
  500: "An unexpected server error (details only in the server's log)",
};

/** Problem responses for OpenAPI, by status. */
export function problemResponses(statuses: readonly number[]) {
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        description: PROBLEM_DESCRIPTIONS[status] ?? "A problem",
        content: { "application/problem+json": { schema: Problem } },
      },
    ]),
  );
}

/** Routes that need an API key: either header works. */
type SecurityRequirements = { [scheme: string]: string[] }[];
export const API_KEY_SECURITY: SecurityRequirements = [{ bearerAuth: [] }, { apiKeyHeader: [] }];
export const PUBLIC_SECURITY: SecurityRequirements = [];

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description: "An API key (`abas_…`) as a bearer token: `Authorization: Bearer <key>`",
  },
  apiKeyHeader: { type: "apiKey", in: "header", name: "X-API-Key", description: "An API key (`abas_…`)" },
} as const;
