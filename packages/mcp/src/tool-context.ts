/** What every tool handler gets: the settings and the REST client (when a key is set). */
import { ApiClient } from "@abas/sdk";

import type { McpServerConfig } from "./config.js";
import type { Logger } from "./logger.js";
import { missingApiKey } from "./tool-failure.js";

export const API_TIMEOUT_MS = 10_000;

export interface ToolContext {
  readonly config: McpServerConfig;
  readonly logger: Logger;
  /** The REST client, or undefined when ABAS_API_KEY is not set. */
  readonly api: ApiClient | undefined;
  /** The REST client; throws a ToolFailure that explains how to create a key when none is set. */
  requireApi(needFor: string): ApiClient;
}

export function createToolContext(config: McpServerConfig, logger: Logger): ToolContext {
  const api =
    config.apiKey === undefined
      ? undefined
      : new ApiClient({ apiUrl: config.apiUrl, apiKey: config.apiKey, timeoutMs: API_TIMEOUT_MS });
  return {
    config,
    logger,
    api,
    requireApi(needFor) {
      if (api === undefined) throw missingApiKey(config, needFor);
      return api;
    },
  };
}
