/** The official MCP client, connected over stdio to `npx -y @abas/mcp` run in the install directory. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

export interface ToolCall {
  readonly isError: boolean;
  readonly text: string;
  readonly structured: Record<string, unknown> | undefined;
}

export interface ConnectedClient {
  readonly client: Client;
  /** Errors the transport reported, such as a stdout line that is not a JSON-RPC message. */
  readonly protocolErrors: Error[];
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<ToolCall>;
  close(): Promise<void>;
}

export async function connectClient(hostDir: string, env: Record<string, string>): Promise<ConnectedClient> {
  const transport = new StdioClientTransport({
    command: "npx",
    args: ["-y", "@abas/mcp"],
    cwd: hostDir,
    env,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "abas-mcp-e2e", version: "1.0.0" });
  const protocolErrors: Error[] = [];
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(transport);
  // The client checks structured content against the output schemas it has listed.
  await client.listTools();
  return {
    client,
    protocolErrors,
    stderr: () => stderr,
    async call(name, args) {
      const result = await client.callTool({ name, arguments: args });
      const content = (result.content ?? []) as { type: string; text?: string }[];
      return {
        isError: result.isError === true,
        text: content
          .filter((part) => part.type === "text")
          .map((part) => part.text)
          .join("\n"),
        structured: result.structuredContent as Record<string, unknown> | undefined,
      };
    },
    close: () => client.close(),
  };
}
