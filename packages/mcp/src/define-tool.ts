/**
 * The shape of one tool (schema, description, annotations, handler) and its registration: the
 * handler returns structured content plus a readable text, and any failure becomes an `isError`
 * result whose text says how to recover, never a protocol error.
 */
import type { McpServer, ToolCallback } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";

import type { ToolContext } from "./tool-context.js";
import { ToolFailure } from "./tool-failure.js";

/** Inputs are strict: a misspelt argument is refused rather than ignored. */
type InputSchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;
type OutputSchema = z.ZodObject<z.ZodRawShape>;

export type ToolAnswer<Output> = Readonly<{ structured: Output; text: string }>;

export interface ToolSpec<Input extends InputSchema, Output extends OutputSchema> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: Output;
  /** `cancelled` aborts when the host cancels the request. */
  handler(
    input: z.output<Input>,
    context: ToolContext,
    cancelled: AbortSignal,
  ): Promise<ToolAnswer<z.input<Output>>>;
}

export interface Tool {
  readonly name: string;
  register(server: McpServer, context: ToolContext): void;
}

export function failureResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

export function defineTool<Input extends InputSchema, Output extends OutputSchema>(
  spec: ToolSpec<Input, Output>,
): Tool {
  return {
    name: spec.name,
    register(server, context) {
      const run = async (
        input: z.output<Input>,
        { signal }: { signal: AbortSignal },
      ): Promise<CallToolResult> => {
        const started = performance.now();
        try {
          const { structured, text } = await spec.handler(input, context, signal);
          context.logger.debug(`${spec.name} answered in ${Math.round(performance.now() - started)} ms`);
          return {
            content: [{ type: "text", text }],
            structuredContent: structured as Record<string, unknown>,
          };
        } catch (error) {
          if (error instanceof ToolFailure) {
            context.logger.info(`${spec.name}: ${error.kind}: ${error.message}`);
            return failureResult(error.message);
          }
          context.logger.error(
            `${spec.name} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          );
          return failureResult(
            `abas-mcp failed unexpectedly while running ${spec.name}: ${error instanceof Error ? error.message : String(error)}. ` +
              "Retry; if it persists, the server's log (stderr, LOG_LEVEL=debug) has the details.",
          );
        }
      };
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema: spec.inputSchema,
          outputSchema: spec.outputSchema,
          annotations: {
            title: spec.title,
            readOnlyHint: true,
            destructiveHint: false,
            idempotentHint: true,
            openWorldHint: true,
          },
        },
        run as unknown as ToolCallback<Input>,
      );
    },
  };
}
