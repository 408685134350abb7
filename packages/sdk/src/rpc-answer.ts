/**
 * The node's answer to each JSON-RPC method the SDK calls, checked for the shape a Solana node
 * gives it before kit reads it. A URL that points at another service (a REST API, a proxy's error
 * page in JSON) then fails as the request it answered, saying what was wrong, rather than as a
 * TypeError deep in the SDK.
 */

export class UnexpectedRpcAnswer extends Error {
  override readonly name = "UnexpectedRpcAnswer";
}

type Check = (value: unknown) => boolean;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isInteger: Check = (value) =>
  typeof value === "bigint" || (typeof value === "number" && Number.isInteger(value));
const isString: Check = (value) => typeof value === "string";
const isArray: Check = (value) => Array.isArray(value);
const objectOrNull: Check = (value) => value === null || isObject(value);
/** `{ context, value }`, as the methods that answer for a slot give it. */
const withValue =
  (check: Check): Check =>
  (result) =>
    isObject(result) && isObject(result.context) && check(result.value);

const RESULTS: Readonly<Record<string, Check>> = {
  getAccountInfo: withValue(objectOrNull),
  getBalance: withValue(isInteger),
  getBlockHeight: isInteger,
  getLatestBlockhash: withValue(isObject),
  getMultipleAccounts: withValue(isArray),
  getProgramAccounts: (result) => isArray(result) || withValue(isArray)(result),
  getSignatureStatuses: withValue(isArray),
  getSignaturesForAddress: isArray,
  getSlot: isInteger,
  getTransaction: objectOrNull,
  requestAirdrop: isString,
  sendTransaction: isString,
  simulateTransaction: withValue(isObject),
};

const HINT = "is the RPC URL a Solana JSON-RPC node?";

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/** Throws UnexpectedRpcAnswer unless `answer` is a JSON-RPC response of the shape `method` gives. */
export function checkRpcAnswer(method: unknown, answer: unknown): void {
  if (!isObject(answer)) {
    throw new UnexpectedRpcAnswer(`the answer is not a JSON-RPC response (${describe(answer)}); ${HINT}`);
  }
  if ("error" in answer) {
    if (isObject(answer.error)) return;
    throw new UnexpectedRpcAnswer(
      `the answer is not a JSON-RPC response (an error that is not an object); ${HINT}`,
    );
  }
  if (!("result" in answer)) {
    throw new UnexpectedRpcAnswer(
      `the answer is not a JSON-RPC response (an object without result or error); ${HINT}`,
    );
  }
  const check = typeof method === "string" ? RESULTS[method] : undefined;
  if (check !== undefined && !check(answer.result)) {
    throw new UnexpectedRpcAnswer(
      `its result is not what a Solana node answers (${describe(answer.result)}); ${HINT}`,
    );
  }
}
