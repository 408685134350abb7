/** `abas status`: is the REST API healthy, is the ledger up, how far behind is the indexer. */
import { innermostMessage } from "@abas/errors";
import { createSolanaRpc } from "@solana/kit";

import { printResult, type CommandContext } from "../cli-io.js";
import {
  assertNoPositionals,
  GLOBAL_OPTIONS_HELP,
  parseOptions,
  resolveGlobalSettings,
} from "../parse-options.js";
import { describeFailure, isConnectionFailure } from "../report-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage: abas status [--json]

Asks the REST API for its health (GET <api-url>/api/v1/health) and the ledger for its slot and
version; exit code 1 when one of them is unreachable or unhealthy.

${GLOBAL_OPTIONS_HELP}`;

const TIMEOUT_MS = 5000;

type HealthReport = {
  status: string;
  causes?: { code: number; name: string; detail: string }[];
  indexer?: { status: string; indexedSlot: number | null; lagSlots: number | null };
  database?: { status: string; dialect: string };
  ledger?: { status: string; slot: number | null };
};

async function fetchHealth(apiUrl: string): Promise<HealthReport> {
  const response = await fetch(`${apiUrl.replace(/\/api\/v1$/, "")}/api/v1/health`, {
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (response.status !== 200 && response.status !== 503) throw new Error(`HTTP ${response.status}`);
  return (await response.json()) as HealthReport;
}

const reason = (error: unknown): string =>
  error instanceof Error && error.name === "TimeoutError"
    ? `no answer within ${TIMEOUT_MS} ms`
    : isConnectionFailure(error)
      ? innermostMessage(error)
      : describeFailure(error).message;

async function run(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {});
  assertNoPositionals(positionals);
  const settings = resolveGlobalSettings(values, env);
  const rpc = createSolanaRpc(settings.rpcUrl);
  const [health, slot, version] = await Promise.allSettled([
    fetchHealth(settings.apiUrl),
    rpc.getSlot({ commitment: "confirmed" }).send({ abortSignal: AbortSignal.timeout(TIMEOUT_MS) }),
    rpc.getVersion().send({ abortSignal: AbortSignal.timeout(TIMEOUT_MS) }),
  ]);
  const ledgerOk = slot.status === "fulfilled" && version.status === "fulfilled";
  const api =
    health.status === "fulfilled"
      ? { url: settings.apiUrl, reachable: true, ...health.value }
      : { url: settings.apiUrl, reachable: false, status: "unreachable", error: reason(health.reason) };
  const ledger = ledgerOk
    ? {
        url: settings.rpcUrl,
        reachable: true,
        slot: Number(slot.value),
        version: version.value["solana-core"],
      }
    : {
        url: settings.rpcUrl,
        reachable: false,
        error: reason(slot.status === "rejected" ? slot.reason : (version as PromiseRejectedResult).reason),
      };
  const indexer = health.status === "fulfilled" ? (health.value.indexer ?? null) : null;
  const ok = api.status === "ok" && ledgerOk;
  const report = { ok, api, ledger, indexer };

  const lines = [
    `ABAS ${ok ? "OK" : "NOT OK"}`,
    `  REST API  ${settings.apiUrl}  ${api.reachable ? api.status : `unreachable (${"error" in api ? api.error : ""})`}`,
    ledger.reachable
      ? `  ledger    ${settings.rpcUrl}  slot ${ledger.slot}, version ${ledger.version}`
      : `  ledger    ${settings.rpcUrl}  unreachable (${"error" in ledger ? ledger.error : ""})`,
    indexer === null
      ? "  indexer   unknown (the REST API did not answer)"
      : `  indexer   ${indexer.status}, indexed slot ${indexer.indexedSlot ?? "-"}, ${indexer.lagSlots ?? "?"} slots behind`,
  ];
  for (const cause of health.status === "fulfilled" ? (health.value.causes ?? []) : []) {
    lines.push(`  problem   ${cause.name}: ${cause.detail}`);
  }
  if (!ok)
    lines.push(
      "  fix: start the service (npm start in the ABAS repository), or point --api-url / --rpc-url at it",
    );
  printResult(io, settings.json, report, lines.join("\n"));
  return ok ? 0 : 1;
}

export const statusCommand: Command = {
  usage: USAGE,
  run,
};
