/**
 * `npm run docs:api`: writes docs/api-reference.md from the REST API's own OpenAPI document.
 *
 * It builds the API in this process on an in-memory SQLite database, asks it for
 * /api/v1/openapi.json (app.inject: no socket), and renders every route, parameter, response
 * and field as markdown, then every ABAS_API error code with its HTTP status and message.
 *
 *   npm run docs:api            # rewrites docs/api-reference.md
 *   npm run docs:api -- --check # exits 1 when docs/api-reference.md is not up to date
 */
import { readFile, writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { migrateToLatest, openDatabase } from "@abas/db";
import * as errors from "@abas/errors";
import { AbasErrorMessages, type AbasErrorCode } from "@abas/errors";
import { buildApp } from "@abas/server";
import { format } from "prettier";
import { httpStatusOf } from "../packages/server/src/problem.js";

const repoRoot = resolve(fileURLToPath(new URL(".", import.meta.url)), "..");
const target = resolve(repoRoot, "docs/api-reference.md");

interface Schema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  nullable?: boolean;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  examples?: unknown[];
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema: Schema;
}

interface Response {
  description?: string;
  headers?: Record<string, { description?: string; schema?: Schema }>;
  content?: Record<string, { schema?: Schema }>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  security?: Record<string, string[]>[];
  responses: Record<string, Response>;
}

interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  components?: {
    securitySchemes?: Record<string, { type: string; scheme?: string; name?: string; in?: string }>;
  };
  paths: Record<string, Record<string, Operation>>;
}

/** Builds the app on an empty in-memory database and reads its OpenAPI document. */
async function fetchOpenApi(): Promise<OpenApiDocument> {
  const database = openDatabase({ url: ":memory:" });
  try {
    await migrateToLatest(database);
    const app = await buildApp({
      db: database.db,
      dialect: database.dialect,
      rpcUrl: "http://127.0.0.1:8899",
      logLevel: "silent",
    });
    try {
      const response = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
      if (response.statusCode !== 200) throw new Error(`openapi.json answered ${response.statusCode}`);
      return response.json<OpenApiDocument>();
    } finally {
      await app.close();
    }
  } finally {
    await database.close();
  }
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");
const code = (text: string) => `\`${text.replaceAll("`", "'")}\``;

/** A short type: `string`, `integer 1..100`, `"a" \| "b"`, `array of object`, `string or null`. */
function typeOf(schema: Schema | undefined): string {
  if (schema === undefined) return "any";
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const consts = variants.flatMap((v) => v.enum ?? (v.const !== undefined ? [v.const] : []));
    if (consts.length === variants.length) return consts.map((v) => JSON.stringify(v)).join(" \\| ");
    return variants.map(typeOf).join(" or ");
  }
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ["any"];
  const base = types
    .map((type) => (type === "array" ? `array of ${typeOf(schema.items)}` : type))
    .join(" or ");
  const bounds: string[] = [];
  if (schema.minimum !== undefined || schema.maximum !== undefined)
    bounds.push(`${schema.minimum ?? ""}..${schema.maximum ?? ""}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined)
    bounds.push(`length ${schema.minLength ?? 0}..${schema.maxLength ?? ""}`);
  if (schema.format) bounds.push(schema.format);
  return [base + (schema.nullable ? " or null" : ""), ...bounds].join(", ");
}

/** Notes of a parameter or field: description, pattern, default, example. */
function notesOf(schema: Schema, description?: string): string {
  const notes = [description ?? schema.description ?? ""];
  if (schema.pattern) notes.push(`pattern ${code(schema.pattern)}`);
  if (schema.default !== undefined) notes.push(`default ${code(JSON.stringify(schema.default))}`);
  if (schema.examples?.length) notes.push(`e.g. ${code(JSON.stringify(schema.examples[0]))}`);
  return cell(notes.filter(Boolean).join("; "));
}

/** The object's fields, flattened with dotted paths (`data[].batch.root`). */
function fieldRows(schema: Schema | undefined, prefix = "", depth = 0): string[] {
  if (schema === undefined || depth > 6) return [];
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants) {
    const objects = variants.filter((v) => v.properties);
    return objects.flatMap((v) => fieldRows(v, prefix, depth));
  }
  if (schema.type === "array" || (Array.isArray(schema.type) && schema.type.includes("array")))
    return fieldRows(schema.items, `${prefix}[]`, depth + 1);
  if (!schema.properties) return [];
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties).flatMap(([name, field]) => {
    const path = prefix ? `${prefix}.${name}` : name;
    return [
      `| ${code(path)} | ${typeOf(field)} | ${required.has(name) ? "yes" : "no"} | ${notesOf(field)} |`,
      ...fieldRows(field, path, depth + 1),
    ];
  });
}

function renderOperation(method: string, path: string, operation: Operation, doc: OpenApiDocument): string[] {
  const lines = [`### \`${method.toUpperCase()} ${path}\``, ""];
  if (operation.summary) lines.push(`${operation.summary}.`.replace(/\.\.$/, "."), "");
  if (operation.description) lines.push(operation.description, "");
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  const schemeText = schemes.map((name) => {
    const scheme = doc.components?.securitySchemes?.[name];
    if (scheme?.type === "http") return `\`Authorization: Bearer <key>\``;
    if (scheme?.type === "apiKey") return `\`${scheme.name}: <key>\``;
    return name;
  });
  lines.push(
    `- Operation id: ${operation.operationId ? code(operation.operationId) : "none"}`,
    `- Authentication: ${schemeText.length > 0 ? `an API key, as ${schemeText.join(" or ")}` : "none (public)"}`,
    "",
  );

  const parameters = operation.parameters ?? [];
  if (parameters.length > 0) {
    lines.push(
      "**Parameters**",
      "",
      "| name | in | type | required | description |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const p of parameters) {
      const required = p.required && p.schema.default === undefined;
      lines.push(
        `| ${code(p.name)} | ${p.in} | ${typeOf(p.schema)} | ${required ? "yes" : "no"} | ${notesOf(p.schema, p.description)} |`,
      );
    }
    lines.push("");
  }

  lines.push("**Responses**", "", "| status | content type | meaning |", "| --- | --- | --- |");
  const responses = Object.entries(operation.responses).sort(([a], [b]) => a.localeCompare(b));
  for (const [status, response] of responses) {
    const types =
      Object.keys(response.content ?? {})
        .map(code)
        .join(", ") || "none";
    lines.push(`| ${status} | ${types} | ${cell(response.description ?? "")} |`);
  }
  lines.push("");

  for (const [status, response] of responses) {
    for (const [contentType, content] of Object.entries(response.content ?? {})) {
      if (contentType === "application/problem+json" && status !== responses[0]![0]) continue;
      const rows = fieldRows(content.schema);
      if (rows.length === 0) continue;
      lines.push(
        `<details><summary>${status} ${contentType}: fields</summary>`,
        "",
        "| field | type | required | description |",
        "| --- | --- | --- | --- |",
        ...rows,
        "",
        "</details>",
        "",
      );
    }
    const headers = Object.entries(response.headers ?? {});
    if (headers.length > 0) {
      lines.push(`Headers of ${status}:`, "", "| header | description |", "| --- | --- |");
      for (const [name, header] of headers)
        lines.push(`| ${code(name)} | ${cell(header.description ?? "")} |`);
      lines.push("");
    }
  }
  return lines;
}

function problemSection(doc: OpenApiDocument): string[] {
  // The problem document's own fields, from the first error response that carries one.
  const problemSchema = Object.values(doc.paths)
    .flatMap((methods) => Object.values(methods))
    .flatMap((operation) => Object.values(operation.responses))
    .map((response) => response.content?.["application/problem+json"]?.schema)
    .find((schema) => schema !== undefined);
  const lines = [
    "## Errors",
    "",
    "Every error answer of `/api/v1` is an RFC 9457 problem document, content type",
    "`application/problem+json`, with a numeric ABAS `code` and its stable `name`.",
    "",
  ];
  if (problemSchema) {
    lines.push(
      "| field | type | required | description |",
      "| --- | --- | --- | --- |",
      ...fieldRows(problemSchema),
      "",
    );
  }
  const apiCodes = Object.entries(errors)
    .flatMap(([name, value]) =>
      name.startsWith("ABAS_API__") && typeof value === "number" ? [{ name, value }] : [],
    )
    .sort((a, b) => a.value - b.value);
  lines.push(
    "Error codes (`@abas/errors`). Codes with an HTTP status are answered by the API; the",
    "4400 block also appears in `causes` of an unhealthy `GET /api/v1/health`; the 4600 block is",
    "reported by `abas-server` and `abas-server keys` (no HTTP answer), the 4700 block by the SDK's",
    "`ApiClient` (no HTTP answer).",
    "",
    "| code | name | HTTP status | message |",
    "| ---: | --- | --- | --- |",
  );
  for (const { name, value } of apiCodes) {
    const status = httpStatusOf(value);
    const message = AbasErrorMessages[value as AbasErrorCode] ?? "";
    lines.push(`| ${value} | ${code(name)} | ${status ?? "-"} | ${cell(message)} |`);
  }
  lines.push("");
  return lines;
}

function render(doc: OpenApiDocument): string {
  const lines = [
    `# ${doc.info.title} reference`,
    "",
    "<!-- Generated by `npm run docs:api` (scripts/api-reference.ts) from the API's OpenAPI document. Do not edit by hand. -->",
    "",
    `Version ${doc.info.version}, OpenAPI ${doc.openapi}. ${doc.info.description ?? ""}`,
    "",
    "Served under `/api/v1` (`npm start`: `http://127.0.0.1:8080/api/v1`); the document itself is",
    "`GET /api/v1/openapi.json`. Explanations, examples, pagination, rate limits and the reputation",
    "formula are in [api.md](api.md).",
    "",
  ];
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );
  const tags = doc.tags ?? [];
  lines.push("## Routes", "", "| method | path | summary | API key |", "| --- | --- | --- | --- |");
  for (const { path, method, operation } of operations) {
    const anchor = `${method}-${path}`.toLowerCase().replace(/[^a-z0-9 -]/g, "");
    lines.push(
      `| ${method.toUpperCase()} | [${code(path)}](#${anchor}) | ${cell(operation.summary ?? "")} | ${(operation.security ?? []).length > 0 ? "yes" : "no"} |`,
    );
  }
  lines.push("");
  for (const tag of tags) {
    const tagged = operations.filter(({ operation }) => operation.tags?.includes(tag.name));
    if (tagged.length === 0) continue;
    lines.push(`## ${tag.name}`, "", tag.description ? `${tag.description}.`.replace(/\.\.$/, ".") : "", "");
    for (const { path, method, operation } of tagged)
      lines.push(...renderOperation(method, path, operation, doc));
  }
  const untagged = operations.filter(
    ({ operation }) => !operation.tags?.some((t) => tags.some((x) => x.name === t)),
  );
  if (untagged.length > 0) {
    lines.push("## Other routes", "");
    for (const { path, method, operation } of untagged)
      lines.push(...renderOperation(method, path, operation, doc));
  }
  lines.push(...problemSection(doc));
  return lines.join("\n");
}

const doc = await fetchOpenApi();
const markdown = await format(render(doc), { parser: "markdown", printWidth: 110 });
if (process.argv.includes("--check")) {
  const current = await readFile(target, "utf8").catch(() => "");
  if (current !== markdown) {
    console.error("docs/api-reference.md is not up to date: run npm run docs:api");
    process.exitCode = 1;
  } else console.log("docs/api-reference.md is up to date");
} else {
  await writeFile(target, markdown);
  console.log(`wrote ${target} (${Object.keys(doc.paths).length} paths)`);
}
