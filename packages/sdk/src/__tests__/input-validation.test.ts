import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_SDK__INVALID_ACTION_HASH,
  ABAS_SDK__INVALID_ACTION_TYPE,
  ABAS_SDK__INVALID_AGENT_STATUS,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__INVALID_BATCH_SIZE,
  ABAS_SDK__INVALID_CLIENT_CONFIG,
  ABAS_SDK__INVALID_KEY_PAIR,
  ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE,
  ABAS_SDK__INVALID_SALT,
  isAbasError,
  type AbasErrorCode,
} from "@abas/errors";
import { refusedUrl } from "@abas/test-support";

import { AttestationClient } from "../client.js";
import { LOCAL_PROGRAM_ID } from "../client-config.js";
import { generateSecretKey } from "../keypair.js";
import { recordFetches } from "./support/no-network.js";

const VALID_HASH = "a".repeat(64);

function isCode(code: AbasErrorCode, check?: (context: Record<string, unknown>) => void) {
  return (error: unknown): true => {
    assert.ok(isAbasError(error), `expected AbasError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    check?.(error.context as Record<string, unknown>);
    return true;
  };
}

describe("input validation, before any network call", () => {
  let rpcUrl: string;
  let fetches: ReturnType<typeof recordFetches>;
  let client: AttestationClient;
  const operatorKeypair = generateSecretKey();

  before(async () => {
    rpcUrl = await refusedUrl();
    fetches = recordFetches();
    client = new AttestationClient({ rpcUrl, agentKeypair: generateSecretKey() });
  });
  after(() => {
    // Then no test of this suite made a request
    assert.deepEqual(fetches.requests, []);
    fetches.restore();
  });

  describe("the client configuration", () => {
    it("defaults to the local ledger's program and confirmed commitment", () => {
      assert.equal(client.programId, LOCAL_PROGRAM_ID);
      assert.equal(LOCAL_PROGRAM_ID, "5RM2JWdhiGGfkBnB16BpZiJoXa79E1rW31pB4YWBZbkN");
      assert.equal(client.settings.commitment, "confirmed");
    });

    it("refuses a missing, malformed or non-HTTP rpcUrl", () => {
      for (const badUrl of [
        undefined,
        42,
        "not a url",
        "ws://127.0.0.1:8900",
        "https://user:secret-password@rpc.example.com",
      ]) {
        assert.throws(
          () => new AttestationClient({ rpcUrl: badUrl as string, agentKeypair: generateSecretKey() }),
          (error: unknown) =>
            isCode(ABAS_SDK__INVALID_CLIENT_CONFIG, (context) => assert.equal(context.field, "rpcUrl"))(
              error,
            ) && !String((error as Error).message).includes("secret-password"),
        );
      }
    });

    it("refuses a bad agent key pair", () => {
      assert.throws(
        () => new AttestationClient({ rpcUrl, agentKeypair: new Uint8Array(64) }),
        isCode(ABAS_SDK__INVALID_KEY_PAIR, (context) =>
          assert.match(String(context.reason), /^agentKeypair /),
        ),
      );
    });

    it("refuses bad optional settings, naming each", () => {
      const cases: [field: string, settings: Record<string, unknown>][] = [
        ["programId", { programId: "not-an-address" }],
        ["commitment", { commitment: "final" }],
        ["priorityFeeMicroLamports", { priorityFeeMicroLamports: -1 }],
        ["priorityFeeMicroLamports", { priorityFeeMicroLamports: 1.5 }],
        ["computeUnitMargin", { computeUnitMargin: -0.1 }],
        ["confirmationTimeoutMs", { confirmationTimeoutMs: 0 }],
        ["maxSendAttempts", { maxSendAttempts: 0 }],
      ];
      for (const [field, settings] of cases) {
        assert.throws(
          () => new AttestationClient({ rpcUrl, agentKeypair: generateSecretKey(), ...settings }),
          isCode(ABAS_SDK__INVALID_CLIENT_CONFIG, (context) => assert.equal(context.field, field)),
        );
      }
    });
  });

  describe("attest", () => {
    it("refuses an action hash that is not exactly 64 hex characters", async () => {
      for (const actionHash of [
        "a".repeat(63),
        "a".repeat(65),
        `${"a".repeat(63)}g`,
        `0x${"a".repeat(62)}`,
        42,
      ]) {
        await assert.rejects(
          () => client.attest({ operatorKeypair, actionHash: actionHash as string, actionType: "ToolCall" }),
          isCode(ABAS_SDK__INVALID_ACTION_HASH, (context) => assert.equal(context.field, "actionHash")),
        );
      }
    });

    it("refuses an unknown action type", async () => {
      for (const actionType of ["Toolcall", "Payment", 4, -1, null]) {
        await assert.rejects(
          () =>
            client.attest({ operatorKeypair, actionHash: VALID_HASH, actionType: actionType as "ToolCall" }),
          isCode(ABAS_SDK__INVALID_ACTION_TYPE),
        );
      }
    });

    it("refuses a privacyMode that is not a boolean", async () => {
      for (const privacyMode of ["true", 1, null]) {
        await assert.rejects(
          () =>
            client.attest({
              operatorKeypair,
              actionHash: VALID_HASH,
              actionType: "Decision",
              privacyMode: privacyMode as unknown as boolean,
            }),
          isCode(ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE),
        );
      }
    });

    it("refuses a bad operator key pair", async () => {
      await assert.rejects(
        () =>
          client.attest({
            operatorKeypair: "/no/such/id.json",
            actionHash: VALID_HASH,
            actionType: "Decision",
          }),
        isCode(ABAS_SDK__INVALID_KEY_PAIR, (context) =>
          assert.match(String(context.reason), /^operatorKeypair /),
        ),
      );
    });
  });

  describe("batchAttest", () => {
    const item = { actionHash: VALID_HASH, actionType: "Transaction" as const };

    it("refuses 0 and 101 items", async () => {
      for (const itemCount of [0, 101]) {
        await assert.rejects(
          () => client.batchAttest({ operatorKeypair, attestations: Array(itemCount).fill(item) }),
          isCode(ABAS_SDK__INVALID_BATCH_SIZE, (context) => {
            assert.equal(context.itemCount, itemCount);
            assert.equal(context.maxItemCount, 100);
          }),
        );
      }
    });

    it("refuses attestations that are not a list", async () => {
      await assert.rejects(
        () => client.batchAttest({ operatorKeypair, attestations: item as never }),
        isCode(ABAS_SDK__INVALID_ARGUMENT, (context) => assert.equal(context.argument, "attestations")),
      );
    });

    it("names the item whose field is bad", async () => {
      const attestations = [item, item, item, { ...item, actionHash: "xyz" }];
      await assert.rejects(
        () => client.batchAttest({ operatorKeypair, attestations }),
        isCode(ABAS_SDK__INVALID_ACTION_HASH, (context) =>
          assert.equal(context.field, "attestations[3].actionHash"),
        ),
      );
      await assert.rejects(
        () =>
          client.batchAttest({
            operatorKeypair,
            attestations: [item, { ...item, privacyMode: "yes" as never }],
          }),
        isCode(ABAS_SDK__INVALID_PRIVACY_FLAG_TYPE),
      );
      await assert.rejects(
        () =>
          client.batchAttest({ operatorKeypair, attestations: [{ ...item, actionType: "Swap" as never }] }),
        isCode(ABAS_SDK__INVALID_ACTION_TYPE),
      );
    });

    it("refuses an onProgress that is not a function", async () => {
      await assert.rejects(
        () => client.batchAttest({ operatorKeypair, attestations: [item], onProgress: "log" as never }),
        isCode(ABAS_SDK__INVALID_ARGUMENT, (context) => assert.equal(context.argument, "onProgress")),
      );
    });
  });

  describe("registerAgent and updateAgent", () => {
    it("refuses an empty or unknown list of allowed action types", async () => {
      await assert.rejects(
        () => client.registerAgent({ operatorKeypair, allowedActionTypes: [] }),
        isCode(ABAS_SDK__INVALID_ARGUMENT, (context) => assert.equal(context.argument, "allowedActionTypes")),
      );
      await assert.rejects(
        () => client.registerAgent({ operatorKeypair, allowedActionTypes: ["ToolCall", "Trade" as never] }),
        isCode(ABAS_SDK__INVALID_ACTION_TYPE),
      );
    });

    it("refuses an unknown status", async () => {
      for (const status of ["paused", "Active", 0]) {
        await assert.rejects(
          () => client.updateAgent({ operatorKeypair, status: status as "active" }),
          isCode(ABAS_SDK__INVALID_AGENT_STATUS),
        );
      }
    });

    it("refuses a bad operator key pair", async () => {
      await assert.rejects(
        () => client.registerAgent({ operatorKeypair: new Uint8Array(3) }),
        isCode(ABAS_SDK__INVALID_KEY_PAIR),
      );
    });
  });

  describe("findAttestation, findBatch and getAgent", () => {
    it("needs exactly one of actionHash and storedHash", async () => {
      await assert.rejects(() => client.findAttestation({}), isCode(ABAS_SDK__INVALID_ARGUMENT));
      await assert.rejects(
        () => client.findAttestation({ actionHash: VALID_HASH, storedHash: VALID_HASH }),
        isCode(ABAS_SDK__INVALID_ARGUMENT),
      );
      await assert.rejects(
        () => client.findAttestation({ storedHash: VALID_HASH, salt: VALID_HASH }),
        isCode(ABAS_SDK__INVALID_ARGUMENT, (context) => assert.equal(context.argument, "salt")),
      );
    });

    it("refuses a malformed hash, salt or agent, never repeating the salt", async () => {
      await assert.rejects(
        () => client.findAttestation({ actionHash: "abc" }),
        isCode(ABAS_SDK__INVALID_ACTION_HASH),
      );
      const badSalt = `${"5".repeat(60)}zzzz`;
      await assert.rejects(
        () => client.findAttestation({ actionHash: VALID_HASH, salt: badSalt }),
        (error: unknown) => isCode(ABAS_SDK__INVALID_SALT)(error) && !String(error).includes(badSalt),
      );
      await assert.rejects(
        () => client.findAttestation({ actionHash: VALID_HASH, agent: "agent-1" }),
        isCode(ABAS_SDK__INVALID_ARGUMENT, (context) => assert.equal(context.argument, "agent")),
      );
      await assert.rejects(
        () => client.findBatch({ merkleRoot: "00" }),
        isCode(ABAS_SDK__INVALID_ACTION_HASH),
      );
      await assert.rejects(() => client.getAgent("nope"), isCode(ABAS_SDK__INVALID_ARGUMENT));
    });
  });

  describe("verifyReceipt", () => {
    it("reports a malformed receipt as invalid without asking the ledger", async () => {
      const verification = await client.verifyReceipt({ txSignature: "x" } as never);
      assert.equal(verification.valid, false);
      assert.equal(verification.checks.format?.ok, false);
      assert.match(
        verification.checks.format?.reason ?? "",
        /actionHash: expected 64 hexadecimal characters/,
      );
      assert.deepEqual(verification.onChain, { account: null, transaction: null });
    });
  });
});

describe("the same client with valid input", () => {
  it("does reach for the network, so the suite above did detect requests", async () => {
    // Given a client on a closed port and a fetch that records
    const fetches = recordFetches();
    try {
      const client = new AttestationClient({
        rpcUrl: await refusedUrl(),
        agentKeypair: generateSecretKey(),
      });
      // When a valid lookup is made, Then it fails as an RPC failure after one request
      await assert.rejects(
        () => client.getAgent(),
        isCode(ABAS_RUNTIME__RPC_REQUEST_FAILED, (context) => assert.equal(context.method, "getAccountInfo")),
      );
      assert.equal(fetches.requests.length, 1);
      assert.match(fetches.requests[0]!, /"method":"getAccountInfo"/);
    } finally {
      fetches.restore();
    }
  });
});
