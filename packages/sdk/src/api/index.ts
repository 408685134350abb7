export { ApiClient, DEFAULT_API_TIMEOUT_MS, type ApiClientConfig } from "./api-client.js";
export type * from "./api-types.js";
