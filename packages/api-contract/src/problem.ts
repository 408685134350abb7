/** The body of every refusal and error: an RFC 9457 problem document with the ABAS error code. */
import { Type, type Static } from "@sinclair/typebox";

export const ApiProblem = Type.Object(
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
export type ApiProblem = Static<typeof ApiProblem>;
