/** What the test support's stdio MCP servers answer to initialize: the host's protocol version, tools only. */
export function initializeResult(
  params: Record<string, unknown> | undefined,
  name: string,
): Record<string, unknown> {
  return {
    protocolVersion: (params?.protocolVersion as string | undefined) ?? "2025-06-18",
    capabilities: { tools: {} },
    serverInfo: { name, version: "1.0.0" },
  };
}
