export { ApiClient, DEFAULT_API_TIMEOUT_MS, type ApiClientConfig } from "./api-client.js";
export type {
  ApiActionTypeName,
  ApiAgent,
  ApiAttestation,
  ApiAttestationLookup,
  ApiAttestationPage,
  ApiHealth,
  ApiHealthCause,
  ApiListAttestationsQuery,
  ApiReputation,
} from "./api-types.js";
