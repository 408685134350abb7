/**
 * findAndVerifyAction and verifyAttestationAt against the whole service: the local ledger, and the
 * REST API's index (through ApiClient) to find who attested a hash. Every answer is read and
 * checked on the ledger; every failure a caller can meet is asserted by its code.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";

import {
  ABAS_RUNTIME__ATTESTATION_NOT_FOUND,
  ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
  ABAS_RUNTIME__BATCH_NOT_FOUND,
  ABAS_RUNTIME__RPC_REQUEST_FAILED,
  ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
  ABAS_SDK__ATTESTATION_INDEX_REQUIRED,
  ABAS_SDK__CANNOT_CANONICALIZE,
  ABAS_SDK__INVALID_ACTION_HASH,
  ABAS_SDK__INVALID_ARGUMENT,
  ABAS_SDK__INVALID_SALT,
  isAbasError,
  type AbasErrorCode,
} from "@abas/errors";
import { generateKeyPairSigner } from "@solana/kit";
import { refusedUrl } from "@abas/test-support";

import { AttestationClient } from "../client.js";
import { findAndVerifyAction, verifyAttestationAt, type LookupOptions } from "../action-lookup/index.js";
import { startIndexedService, waitFor, type IndexedService } from "./support/indexed-service.js";

const rejectsWith = async (work: Promise<unknown>, code: AbasErrorCode) =>
  await assert.rejects(work, (error: unknown) => {
    assert.ok(isAbasError(error, code), `expected code ${code}, got ${String(error)}`);
    return true;
  });

describe("finding and verifying an action", () => {
  let service: IndexedService;
  let options: LookupOptions;
  let ledgerOnly: LookupOptions;

  before(async () => {
    service = await startIndexedService();
    ledgerOnly = { rpcUrl: service.rpcUrl, programId: service.programId };
    options = { ...ledgerOnly, index: service.api };
  });
  after(async () => await service?.stop());

  describe("findAndVerifyAction", () => {
    it("finds a payload pasted with other spacing and key order through the index, and verifies it", async () => {
      // Given the payload as someone pasted it: the same object, keys in another order, spaced
      const pasted = '{ "arguments": { "from": "LIS", "to": "SFO" }, "tool": "flights.search" }';
      // When it is looked up
      const lookup = await findAndVerifyAction({ payload: pasted }, options);
      // Then its canonical JSON hash is the one attested, and every check passed on the ledger
      assert.equal(lookup.attested, true);
      assert.equal(lookup.searchedBy, "index");
      assert.deepEqual(
        lookup.hashes.map((hash) => hash.source),
        ["payload-as-written", "canonical-json"],
      );
      // Both agents that attested it are found, each checked on the ledger
      assert.deepEqual(
        lookup.matches.map((m) => m.agent).sort(),
        [service.agent, service.plainByOtherAgent.agent].sort(),
      );
      assert.ok(lookup.matches.every((m) => m.verified));
      const match = lookup.matches.find((m) => m.agent === service.agent);
      assert.equal(match!.hash.source, "canonical-json");
      // And the text as written, which nobody attested, is not reported as a miss: the action was found
      assert.deepEqual(lookup.notes, []);
      assert.deepEqual(
        [match!.kind, match!.address, match!.txSignature, match!.agent, match!.slot, match!.timestamp],
        [
          "attestation",
          service.plain.attestationAddress,
          service.plain.txSignature,
          service.agent,
          service.plain.slot,
          service.plain.timestamp,
        ],
      );
      assert.deepEqual(Object.keys(match!.checks).sort(), [
        "account",
        "accountFields",
        "address",
        "agentSignature",
        "format",
        "program",
        "storedHash",
        "transaction",
      ]);
      assert.ok(Object.values(match!.checks).every((check) => check.ok));
    });

    it("does not match a pasted payload whose JSON repeats a key to the attested one, and says why", async () => {
      // Given the attested payload's JSON with one key given twice: a reader sees "NRT" first,
      // JSON.parse keeps "SFO" alone, so its canonical JSON is the attested one's
      const pasted = '{"tool":"flights.search","arguments":{"to":"NRT","from":"LIS","to":"SFO"}}';
      const lookup = await findAndVerifyAction({ payload: pasted }, options);
      // Then it is hashed as written only, not found, and a note names the repeated key
      assert.equal(lookup.attested, false);
      assert.deepEqual(
        lookup.hashes.map((hash) => hash.source),
        ["payload-as-written"],
      );
      assert.deepEqual(
        lookup.notes.filter((entry) => entry.kind === "payload-json-ambiguous").map((entry) => entry.message),
        [
          'The payload is JSON that says more than its parsed value (an object repeats the key "to"), so it was hashed as written only: as canonical JSON it would match another text that says something else.',
        ],
      );
    });

    it("checks at most maxCandidates attestations, and says how many it left", async () => {
      const lookup = await findAndVerifyAction(
        { actionHash: service.plain.actionHash },
        { ...options, maxCandidates: 1 },
      );
      assert.equal(lookup.matches.length, 1);
      assert.deepEqual(
        lookup.notes.map((entry) => entry.kind),
        ["too-many-candidates"],
      );
      // Without maxCandidates, up to 10 are checked: both
      assert.equal(
        (await findAndVerifyAction({ actionHash: service.plain.actionHash }, options)).matches.length,
        2,
      );
    });

    it("checks the first to attest a hash first, counts a batch repeating it once, and says when the index holds more than it reads", async () => {
      // Given an action attested by the service's agent, then repeated 100 times in one batch by another agent
      const actionHash = await AttestationClient.hashAction(`first attested ${Date.now()}`);
      const first = await service.client.attest({
        operatorKeypair: service.operator,
        actionHash,
        actionType: "Decision",
      });
      const copier = new AttestationClient({
        rpcUrl: service.rpcUrl,
        agentKeypair: await generateKeyPairSigner(),
        programId: service.programId,
      });
      await copier.registerAgent({ operatorKeypair: service.operator });
      const copies = await copier.batchAttest({
        operatorKeypair: service.operator,
        attestations: Array.from({ length: 100 }, () => ({ actionHash, actionType: "Decision" as const })),
      });
      await waitFor(
        "the indexer",
        async () =>
          (await service.api.listAttestations({ storedHash: actionHash, limit: 100 })).pagination.hasMore,
      );
      // When it is looked up through the index, whose newest 100 entries are all copies
      const lookup = await findAndVerifyAction({ actionHash }, options);
      // Then the first attestation is checked first, and the batch counts once
      assert.deepEqual(
        lookup.matches.map((match) => [match.address, match.batch?.index ?? null, match.verified]),
        [
          [first.attestationAddress, null, true],
          [copies.batchAddress, 0, true],
        ],
      );
      assert.deepEqual([lookup.complete, lookup.notes], [true, []]);
      // And when the search may read fewer entries than the index holds, the lookup says it is incomplete
      const capped = await findAndVerifyAction({ actionHash }, { ...options, maxIndexEntries: 100 });
      assert.deepEqual(
        capped.matches.map((match) => match.address),
        [copies.batchAddress],
      );
      assert.equal(capped.complete, false);
      assert.deepEqual(
        capped.notes.map((entry) => entry.kind),
        ["index-page-full"],
      );
      assert.match(capped.notes[0]!.message, /only the 100 newest were searched/);
    });

    it("opens a privacy-mode attestation with its salt, and cannot find it without", async () => {
      const withSalt = await findAndVerifyAction(
        { payload: service.privatePayload, salt: service.private.salt! },
        options,
      );
      assert.equal(withSalt.attested, true);
      assert.equal(withSalt.matches[0]!.storedHash, service.private.storedHash);
      assert.equal(withSalt.matches[0]!.commitmentOpened, true);
      assert.equal(withSalt.matches[0]!.checks.storedHash?.ok, true);

      const withoutSalt = await findAndVerifyAction({ actionHash: service.private.actionHash }, options);
      assert.deepEqual([withoutSalt.attested, withoutSalt.matches], [false, []]);
      assert.deepEqual(
        withoutSalt.notes.map((entry) => entry.kind),
        ["not-indexed"],
      );
    });

    it("verifies a batch item found through the index, its proof built from the ledger's leaves", async () => {
      const lookup = await findAndVerifyAction({ payload: service.batchPayloads[2]! }, options);
      assert.equal(lookup.attested, true);
      const { batch } = lookup.matches[0]!;
      assert.deepEqual(batch, {
        ...batch!,
        index: 2,
        itemCount: 3,
        complete: true,
        merkleRoot: service.batch.merkleRoot,
        proof: service.batch.receipts[2]!.proof,
        proofSource: "ledger-leaves",
      });
      assert.equal(lookup.matches[0]!.checks.merkleProof?.ok, true);
      assert.equal(lookup.matches[0]!.checks.batchLeaf?.ok, true);
    });

    it("checks a batch item's own proof, and says which check fails when it is wrong", async () => {
      const item = service.batch.receipts[1]!;
      const where = { batchAddress: item.batchAddress, index: item.index };
      const right = await findAndVerifyAction(
        { payload: service.batchPayloads[1]!, ...where, proof: item.proof },
        ledgerOnly,
      );
      assert.deepEqual(
        [right.attested, right.searchedBy, right.matches[0]!.batch?.proofSource],
        [true, "batchAddress", "query"],
      );
      const wrong = await findAndVerifyAction(
        { payload: service.batchPayloads[1]!, ...where, proof: [...item.proof].reverse() },
        ledgerOnly,
      );
      assert.equal(wrong.attested, false);
      assert.match(wrong.matches[0]!.checks.merkleProof!.reason!, /does not link item 2 to the Merkle root/);
    });

    it("finds from the ledger alone given the agent or the transaction", async () => {
      const byAgent = await findAndVerifyAction(
        { actionHash: service.plain.actionHash, agent: service.agent },
        ledgerOnly,
      );
      assert.deepEqual([byAgent.attested, byAgent.searchedBy, byAgent.notes], [true, "agent", []]);
      // The transaction was not given: it is the one that wrote the account in its slot
      assert.equal(byAgent.matches[0]!.txSignature, service.plain.txSignature);

      const byTransaction = await findAndVerifyAction(
        { payload: service.batchPayloads[0]!, txSignature: service.batch.txSignature },
        ledgerOnly,
      );
      assert.deepEqual([byTransaction.attested, byTransaction.matches[0]!.batch?.index], [true, 0]);
    });

    it("finds an agent's batch item through the index, and says when no index was given", async () => {
      const withIndex = await findAndVerifyAction(
        { payload: service.batchPayloads[1]!, agent: service.agent },
        options,
      );
      assert.deepEqual([withIndex.attested, withIndex.matches[0]!.batch?.index], [true, 1]);
      const withoutIndex = await findAndVerifyAction(
        { payload: service.batchPayloads[1]!, agent: service.agent },
        ledgerOnly,
      );
      assert.equal(withoutIndex.attested, false);
      assert.deepEqual(
        withoutIndex.notes.map((entry) => entry.kind),
        ["batch-items-not-searched"],
      );
    });

    it("answers attested: false for what nobody attested, and names an agent that is not registered", async () => {
      const unknown = await findAndVerifyAction({ payload: "never attested" }, options);
      assert.deepEqual([unknown.attested, unknown.matches], [false, []]);
      const stranger = (await generateKeyPairSigner()).address;
      const otherAgent = await findAndVerifyAction(
        { actionHash: service.plain.actionHash, agent: stranger },
        options,
      );
      assert.equal(otherAgent.attested, false);
      assert.ok(otherAgent.notes.some((entry) => entry.kind === "agent-not-registered"));
    });

    it("refuses references the ledger does not hold, by code", async () => {
      await rejectsWith(
        findAndVerifyAction({ payload: "x", batchAddress: service.agent }, ledgerOnly),
        ABAS_RUNTIME__BATCH_NOT_FOUND,
      );
      await rejectsWith(
        findAndVerifyAction({ payload: "x", txSignature: "1".repeat(64) }, ledgerOnly),
        ABAS_RUNTIME__TRANSACTION_NOT_FOUND,
      );
      await rejectsWith(
        findAndVerifyAction({ payload: "x", batchAddress: service.batch.batchAddress, index: 7 }, ledgerOnly),
        ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
      );
    });

    it("refuses bad input by code, before any request", async () => {
      const nowhere = { rpcUrl: await refusedUrl(), programId: service.programId };
      await rejectsWith(findAndVerifyAction({ payload: "x" }, nowhere), ABAS_SDK__ATTESTATION_INDEX_REQUIRED);
      await rejectsWith(findAndVerifyAction({ agent: service.agent }, nowhere), ABAS_SDK__INVALID_ARGUMENT);
      await rejectsWith(
        findAndVerifyAction({ payload: "x", agent: service.agent }, { ...nowhere, maxCandidates: 0 }),
        ABAS_SDK__INVALID_ARGUMENT,
      );
      await rejectsWith(
        findAndVerifyAction({ payload: "x", agent: service.agent }, { ...nowhere, maxIndexEntries: 0.5 }),
        ABAS_SDK__INVALID_ARGUMENT,
      );
      await rejectsWith(
        findAndVerifyAction({ payload: "x", agent: service.agent, index: 1 }, nowhere),
        ABAS_SDK__INVALID_ARGUMENT,
      );
      await rejectsWith(
        findAndVerifyAction({ actionHash: "xyz", agent: service.agent }, nowhere),
        ABAS_SDK__INVALID_ACTION_HASH,
      );
      await rejectsWith(
        findAndVerifyAction({ payload: "x", salt: "00", agent: service.agent }, nowhere),
        ABAS_SDK__INVALID_SALT,
      );
      await rejectsWith(
        findAndVerifyAction({ payload: { value: "\ud800" }, agent: service.agent }, nowhere),
        ABAS_SDK__CANNOT_CANONICALIZE,
      );
    });

    it("names the RPC method when the ledger does not answer, and stops when aborted", async () => {
      const nowhere = { rpcUrl: await refusedUrl(), programId: service.programId };
      await rejectsWith(
        findAndVerifyAction({ payload: "x", agent: service.agent }, nowhere),
        ABAS_RUNTIME__RPC_REQUEST_FAILED,
      );
      await assert.rejects(
        findAndVerifyAction({ payload: "x" }, { ...options, abortSignal: AbortSignal.abort() }),
        { name: "AbortError" },
      );
    });

    it("stops its requests to the ledger when aborted", async (t) => {
      // Given a ledger that takes requests and never answers them
      const requests: IncomingMessage[] = [];
      const closed: Promise<void>[] = [];
      const silent = createServer((request) => {
        requests.push(request);
        closed.push(new Promise((resolve) => request.socket.once("close", resolve)));
      });
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      t.after(() => silent.close());
      const { port } = silent.address() as AddressInfo;
      const stop = new AbortController();
      const lookup = findAndVerifyAction(
        { payload: "x", agent: service.agent },
        { rpcUrl: `http://127.0.0.1:${port}`, programId: service.programId, abortSignal: stop.signal },
      );
      while (requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      // When the lookup is aborted
      stop.abort(new Error("cancelled by the caller"));
      // Then it rejects with the reason, and the request it had sent is dropped, not left to run
      // until its own timeout (DEFAULT_REQUEST_TIMEOUT_MS, 30 s)
      await assert.rejects(lookup, /cancelled by the caller/);
      const stillOpen = new Promise<string>((resolve) =>
        setTimeout(() => resolve("still open"), 10_000).unref(),
      );
      assert.equal(await Promise.race([Promise.all(closed).then(() => "closed"), stillOpen]), "closed");
    });
  });

  describe("verifyAttestationAt", () => {
    it("verifies a single attestation and a batch item where an index says they are", async () => {
      const single = await verifyAttestationAt({ address: service.plain.attestationAddress }, ledgerOnly);
      assert.deepEqual([single.verified, single.txSignature], [true, service.plain.txSignature]);
      const item = await verifyAttestationAt(
        { address: service.batch.batchAddress, batchIndex: 1, txSignature: service.batch.txSignature },
        ledgerOnly,
      );
      assert.deepEqual(
        [item.verified, item.kind, item.batch?.proof],
        [true, "batch-item", service.batch.receipts[1]!.proof],
      );
    });

    it("verifies a privacy-mode attestation without its salt, all but opening the commitment", async () => {
      const unopened = await verifyAttestationAt({ address: service.private.attestationAddress }, ledgerOnly);
      assert.deepEqual([unopened.verified, unopened.commitmentOpened], [true, false]);
      assert.equal(unopened.checks.storedHash, undefined);
      const opened = await verifyAttestationAt(
        {
          address: service.private.attestationAddress,
          actionHash: service.private.actionHash,
          salt: service.private.salt!,
        },
        ledgerOnly,
      );
      assert.deepEqual(
        [opened.verified, opened.commitmentOpened, opened.checks.storedHash?.ok],
        [true, true, true],
      );
    });

    it("refuses an address without an attestation, an item past the batch's end, and a missing item position", async () => {
      await rejectsWith(
        verifyAttestationAt({ address: service.agent }, ledgerOnly),
        ABAS_RUNTIME__ATTESTATION_NOT_FOUND,
      );
      await rejectsWith(
        verifyAttestationAt({ address: service.batch.batchAddress, batchIndex: 3 }, ledgerOnly),
        ABAS_RUNTIME__BATCH_INDEX_OUT_OF_RANGE,
      );
      await rejectsWith(
        verifyAttestationAt({ address: service.batch.batchAddress }, ledgerOnly),
        ABAS_SDK__INVALID_ARGUMENT,
      );
    });
  });
});
