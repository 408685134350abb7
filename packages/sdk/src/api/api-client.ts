/**
 * A typed client of the ABAS REST API. Every body is checked against the API's contract before it
 * is returned, so the types it promises hold. Every failure is an AbasError: the API's own problem
 * code (401 unknown key, 429 rate limited, 400 bad parameter, ...), ABAS_API__NETWORK_ERROR or
 * ABAS_API__REQUEST_TIMEOUT when no response arrived, ABAS_API__UNEXPECTED_RESPONSE otherwise
 * (a body that is not JSON or not as the contract says, naming the first field that is not).
 */
import {
  ApiAgent,
  ApiAttestationLookup,
  ApiAttestationPage,
  ApiHealth,
  ApiProblem,
  findContractMismatch,
  type ApiAttestation,
  type Static,
  type TSchema,
} from "@abas/api-contract";
import {
  ABAS_API__NETWORK_ERROR,
  ABAS_API__REQUEST_TIMEOUT,
  ABAS_API__UNEXPECTED_RESPONSE,
  ABAS_SDK__INVALID_CLIENT_CONFIG,
  AbasError,
  AbasErrorMessages,
  ERROR_CODE_RANGES,
  type AbasErrorCode,
} from "@abas/errors";

import {
  indexedAttestationRef,
  type AttestationIndex,
  type AttestationIndexQuery,
  type IndexedAttestationPage,
} from "../action-lookup/attestation-index.js";
import type { ApiListAttestationsQuery } from "./api-types.js";

export interface ApiClientConfig {
  /** The service's base address, e.g. `http://127.0.0.1:8080` (a trailing `/api/v1` is accepted). */
  readonly apiUrl: string;
  /** An API key (`abas_…`). */
  readonly apiKey: string;
  /** Per request; default 10 000 ms. */
  readonly timeoutMs?: number;
  /** Another fetch implementation (a proxy agent, a test double). */
  readonly fetch?: typeof fetch;
}

export const DEFAULT_API_TIMEOUT_MS = 10_000;
const API_PATH = "/api/v1";

function invalidConfig(field: string, reason: string): AbasError {
  return new AbasError(ABAS_SDK__INVALID_CLIENT_CONFIG, { field, reason });
}

function parseApiUrl(value: unknown): string {
  if (typeof value !== "string") throw invalidConfig("apiUrl", "expected the API's http(s) base URL");
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidConfig("apiUrl", "not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw invalidConfig("apiUrl", `expected http: or https:, got ${url.protocol}`);
  }
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path.endsWith(API_PATH) ? path : `${path}${API_PATH}`}`;
}

function timeParameter(value: number | Date | string): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/** An ABAS_API code with a message, i.e. one this client can rebuild an AbasError from. */
function isKnownApiCode(code: unknown): code is AbasErrorCode {
  return (
    typeof code === "number" &&
    code >= ERROR_CODE_RANGES.ABAS_API.min &&
    code <= ERROR_CODE_RANGES.ABAS_API.max &&
    Object.prototype.hasOwnProperty.call(AbasErrorMessages, code)
  );
}

type AnyCodeAbasError = new (code: AbasErrorCode, context?: Record<string, unknown>) => AbasError;

/** `body` as the contract's type, or ABAS_API__UNEXPECTED_RESPONSE naming where it differs. */
function checkedBody<S extends TSchema>(schema: S, status: number, body: unknown): Static<S> {
  const mismatch = findContractMismatch(schema, body);
  if (mismatch === undefined) return body as Static<S>;
  const where = mismatch.path === "" ? "the body" : mismatch.path;
  throw new AbasError(ABAS_API__UNEXPECTED_RESPONSE, {
    status,
    reason: `${where} is not as the API's contract says: ${mismatch.message}`,
  });
}

export class ApiClient implements AttestationIndex {
  readonly #baseUrl: string;
  readonly #apiKey: string;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(config: ApiClientConfig) {
    if (typeof config !== "object" || config === null) throw invalidConfig("config", "expected an object");
    this.#baseUrl = parseApiUrl(config.apiUrl);
    if (typeof config.apiKey !== "string" || config.apiKey.trim() === "") {
      throw invalidConfig("apiKey", "expected an API key (abas_…)");
    }
    this.#apiKey = config.apiKey.trim();
    const timeoutMs = config.timeoutMs ?? DEFAULT_API_TIMEOUT_MS;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1)
      throw invalidConfig("timeoutMs", "expected a positive integer");
    this.#timeoutMs = timeoutMs;
    this.#fetch = config.fetch ?? globalThis.fetch;
  }

  /** One page of attestations, newest first. */
  async listAttestations(query: ApiListAttestationsQuery = {}): Promise<ApiAttestationPage> {
    const parameters = new URLSearchParams();
    for (const [name, value] of Object.entries(query) as [keyof ApiListAttestationsQuery, unknown][]) {
      if (value === undefined) continue;
      parameters.set(
        name,
        name === "since" || name === "until" ? timeParameter(value as number | Date | string) : String(value),
      );
    }
    const search = parameters.size > 0 ? `?${parameters.toString()}` : "";
    return this.#get(`/attestations${search}`, ApiAttestationPage);
  }

  /** Every attestation matching `query`, newest first, fetching pages as the loop advances. */
  async *iterateAttestations(
    query: ApiListAttestationsQuery = {},
  ): AsyncGenerator<ApiAttestation, void, undefined> {
    let cursor = query.cursor;
    for (;;) {
      const page = await this.listAttestations({ ...query, cursor });
      yield* page.data;
      if (!page.pagination.hasMore || page.pagination.nextCursor === null) return;
      cursor = page.pagination.nextCursor;
    }
  }

  /** By attestation id (address or `<batch>:<index>`) or by transaction signature. */
  async getAttestation(idOrSignature: string): Promise<ApiAttestationLookup> {
    return this.#get(`/attestations/${encodeURIComponent(idOrSignature)}`, ApiAttestationLookup);
  }

  /** By the agent's public key (or its Agent account address). */
  async getAgent(agent: string): Promise<ApiAgent> {
    return this.#get(`/agents/${encodeURIComponent(agent)}`, ApiAgent);
  }

  /** The indexed attestations that store a hash: what `findAndVerifyAction` asks an index. */
  async findAttestations({
    storedHash,
    agent,
    limit,
    cursor,
  }: AttestationIndexQuery): Promise<IndexedAttestationPage> {
    const page = await this.listAttestations({
      storedHash,
      limit,
      ...(agent === undefined ? {} : { agent }),
      ...(cursor === undefined ? {} : { cursor }),
    });
    return { entries: page.data.map(indexedAttestationRef), nextCursor: page.pagination.nextCursor };
  }

  /** The health report, healthy (HTTP 200) or not (HTTP 503): read `status` and `causes`. */
  async health(): Promise<ApiHealth> {
    return this.#get("/health", ApiHealth, [503]);
  }

  async #get<S extends TSchema>(
    path: string,
    schema: S,
    acceptedErrorStatuses: readonly number[] = [],
  ): Promise<Static<S>> {
    const url = `${this.#baseUrl}${path}`;
    let response: Response;
    try {
      response = await this.#fetch(url, {
        headers: { authorization: `Bearer ${this.#apiKey}`, accept: "application/json" },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === "TimeoutError") {
        throw new AbasError(ABAS_API__REQUEST_TIMEOUT, { url, timeoutMs: this.#timeoutMs, cause: error });
      }
      throw new AbasError(ABAS_API__NETWORK_ERROR, { url, cause: error });
    }
    const body = await this.#readJson(response);
    if (response.ok || acceptedErrorStatuses.includes(response.status)) {
      return checkedBody(schema, response.status, body);
    }
    throw this.#problemError(response.status, checkedBody(ApiProblem, response.status, body));
  }

  async #readJson(response: Response): Promise<unknown> {
    const text = await response.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new AbasError(ABAS_API__UNEXPECTED_RESPONSE, {
        status: response.status,
        reason: "the body is not JSON",
      });
    }
  }

  /** The API's problem document as the AbasError of its code. */
  #problemError(status: number, problem: ApiProblem): AbasError {
    if (!isKnownApiCode(problem.code)) {
      return new AbasError(ABAS_API__UNEXPECTED_RESPONSE, {
        status,
        reason: `the error code ${problem.code} is not an ABAS API code this client knows`,
      });
    }
    return new (AbasError as unknown as AnyCodeAbasError)(problem.code, { ...problem.context });
  }
}
