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

type AnyObjectSchema = z.ZodObject<z.ZodRawShape>;

export type ToolAnswer<Output> = Readonly<{ structured: Output; text: string }>;

export interface ToolSpec<Input extends AnyObjectSchema, Output extends AnyObjectSchema> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: Output;
  handler(input: z.output<Input>, context: ToolContext): Promise<ToolAnswer<z.input<Output>>>;
}

export interface Tool {
  readonly name: string;
  register(server: McpServer, context: ToolContext): void;
}

export function failureResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

export function defineTool<Input extends AnyObjectSchema, Output extends AnyObjectSchema>(
  spec: ToolSpec<Input, Output>,
): Tool {
  return {
    name: spec.name,
    register(server, context) {
      const run = async (input: z.output<Input>): Promise<CallToolResult> => {
        const started = performance.now();
        try {
          const { structured, text } = await spec.handler(input, context);
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
