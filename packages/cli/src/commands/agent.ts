/** `abas agent register | update | show`. */
import { ABAS_RUNTIME__AGENT_NOT_REGISTERED, AbasError } from "@abas/errors";
import {
  actionTypesMask,
  ActionType,
  AgentStatus,
  buildUpdateAgentInstruction,
  deriveAgentAddress,
} from "@abas/program-client";
import { getTransactionExplorerUrl, sendAndConfirmTransaction, type AgentRecord } from "@abas/sdk";
import { address as toAddress, createSolanaRpc, type Address } from "@solana/kit";

import { parseActionTypeList, type ActionTypeName } from "../action-types.js";
import { printResult, type CommandContext } from "../cli-io.js";
import {
  createClient,
  createReadOnlyClient,
  keypairPath,
  loadKeypairOption,
  parseAddressReference,
} from "../clients.js";
import {
  assertNoPositionals,
  GLOBAL_OPTIONS_HELP,
  parseOptions,
  requireOption,
  resolveGlobalSettings,
  type GlobalSettings,
} from "../parse-options.js";
import { UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const USAGE = `Usage:
  abas agent register --operator <keypair> --agent <keypair> [--types ToolCall,Decision]
  abas agent update --operator <keypair> --agent <keypair|address> --status active|suspended|revoked [--types ...]
  abas agent show <address>

  --operator <keypair>  the operator's key file: pays, and alone may attest for and change the agent
  --agent <keypair>     the agent's key file (register needs it: the agent signs its registration)
  --types <list>        allowed action types, comma-separated: Transaction, ToolCall, Decision,
                        ModelInvocation (register: default all four; update: default unchanged)
  --status <status>     active, suspended or revoked (revoked is final)

${GLOBAL_OPTIONS_HELP}`;

const STATUSES = {
  active: AgentStatus.Active,
  suspended: AgentStatus.Suspended,
  revoked: AgentStatus.Revoked,
};
type StatusName = keyof typeof STATUSES;

function formatAgent(agent: AgentRecord): string {
  const time = (seconds: number) => new Date(seconds * 1000).toISOString();
  return [
    `agent        ${agent.agent}`,
    `status       ${agent.status}`,
    `operator     ${agent.operator}`,
    `account      ${agent.address}`,
    `types        ${agent.allowedActionTypes.join(", ")}`,
    `registered   ${time(agent.registeredAt)} (slot ${agent.registeredSlot})`,
    `updated      ${time(agent.updatedAt)}`,
    `attestations ${agent.attestationCount} single, ${agent.batchCount} batches of ${agent.batchItemCount} items`,
    `last attest  ${agent.lastAttestedAt === null ? "never" : time(agent.lastAttestedAt)}`,
  ].join("\n");
}

async function register(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    operator: { type: "string" },
    agent: { type: "string" },
    types: { type: "string" },
  });
  assertNoPositionals(positionals);
  const settings = resolveGlobalSettings(values, env);
  const operatorPath = requireOption(values.operator, "--operator", "keypair");
  const agentPath = keypairPath(requireOption(values.agent, "--agent", "keypair"), "--agent");
  const types = values.types === undefined ? undefined : parseActionTypeList(values.types);
  const operatorKeypair = await loadKeypairOption(operatorPath, "--operator");
  const client = createClient(settings, await loadKeypairOption(agentPath, "--agent"));
  const result = await client.registerAgent({
    operatorKeypair,
    ...(types === undefined ? {} : { allowedActionTypes: types }),
  });
  printResult(
    io,
    settings.json,
    result,
    `Agent ${result.agent} registered under operator ${result.operator}\n` +
      `  allowed types  ${result.allowedActionTypes.join(", ")}\n` +
      `  account        ${result.agentAccountAddress}\n` +
      `  transaction    ${result.txSignature} (slot ${result.slot})\n  explorer       ${result.explorerUrl}`,
  );
  return 0;
}

/** update_agent signed by the operator alone, for an agent known only by its address. */
async function updateByAddress(
  settings: GlobalSettings,
  agent: Address,
  operatorPath: string,
  status: StatusName,
  types: ActionTypeName[] | undefined,
) {
  const reader = await createReadOnlyClient(settings);
  const current = await reader.getAgent(agent);
  if (current === null) throw new AbasError(ABAS_RUNTIME__AGENT_NOT_REGISTERED, { agent });
  const allowed = types ?? current.allowedActionTypes;
  const operator = await loadKeypairOption(operatorPath, "--operator");
  const programId = reader.programId;
  const instruction = await buildUpdateAgentInstruction({
    programId,
    operator,
    agent,
    status: STATUSES[status],
    allowedActionTypes: actionTypesMask(allowed.map((name) => ActionType[name])),
  });
  const { commitment, confirmationTimeoutMs, maxSendAttempts, computeUnitMargin } = reader.settings;
  const sent = await sendAndConfirmTransaction(
    {
      rpc: createSolanaRpc(settings.rpcUrl),
      programId,
      commitment,
      confirmationTimeoutMs,
      maxSendAttempts,
      computeUnitMargin,
    },
    { feePayer: operator, instructions: [instruction] },
  );
  return {
    txSignature: sent.signature as string,
    explorerUrl: getTransactionExplorerUrl(sent.signature, settings.rpcUrl),
    agent,
    operator: operator.address,
    agentAccountAddress: (await deriveAgentAddress(programId, agent)).address,
    allowedActionTypes: allowed,
    status,
    slot: Number(sent.slot),
  };
}

async function update(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {
    operator: { type: "string" },
    agent: { type: "string" },
    status: { type: "string" },
    types: { type: "string" },
  });
  assertNoPositionals(positionals);
  const settings = resolveGlobalSettings(values, env);
  const operatorPath = keypairPath(requireOption(values.operator, "--operator", "keypair"), "--operator");
  const agentRef = parseAddressReference(
    requireOption(values.agent, "--agent", "keypair|address"),
    "--agent",
    "agent",
  );
  const status = requireOption(values.status, "--status", "active|suspended|revoked");
  if (!Object.hasOwn(STATUSES, status)) {
    throw new UsageError(`--status: unknown status "${status}"; use active, suspended or revoked`);
  }
  const types = values.types === undefined ? undefined : parseActionTypeList(values.types);
  const result =
    "address" in agentRef
      ? await updateByAddress(
          settings,
          toAddress(agentRef.address),
          operatorPath,
          status as StatusName,
          types,
        )
      : await createClient(settings, await loadKeypairOption(agentRef.path, "--agent")).updateAgent({
          operatorKeypair: await loadKeypairOption(operatorPath, "--operator"),
          status: status as StatusName,
          ...(types === undefined ? {} : { allowedActionTypes: types }),
        });
  printResult(
    io,
    settings.json,
    result,
    `Agent ${result.agent} is now ${result.status}\n` +
      `  allowed types  ${result.allowedActionTypes.join(", ")}\n` +
      `  transaction    ${result.txSignature} (slot ${result.slot})\n  explorer       ${result.explorerUrl}`,
  );
  return 0;
}

async function show(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, {});
  if (positionals.length !== 1) throw new UsageError("agent show needs exactly one agent address");
  assertNoPositionals(positionals, 1);
  const settings = resolveGlobalSettings(values, env);
  const agentRef = parseAddressReference(positionals[0]!, "agent", "agent");
  const reader = await createReadOnlyClient(settings);
  const agentAddress =
    "address" in agentRef ? agentRef.address : (await loadKeypairOption(agentRef.path, "agent")).address;
  const agent = await reader.getAgent(agentAddress);
  if (agent === null) throw new AbasError(ABAS_RUNTIME__AGENT_NOT_REGISTERED, { agent: agentAddress });
  printResult(io, settings.json, agent, formatAgent(agent));
  return 0;
}

const SUBCOMMANDS: Record<string, (args: readonly string[], context: CommandContext) => Promise<number>> = {
  register,
  update,
  show,
};

async function run(args: readonly string[], context: CommandContext): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === undefined || subcommand.startsWith("-")) {
    if (args.includes("--help") || args.includes("-h")) {
      context.io.out(USAGE);
      return 0;
    }
    throw new UsageError("agent needs a subcommand: register, update or show");
  }
  const handler = SUBCOMMANDS[subcommand];
  if (handler === undefined) {
    throw new UsageError(`unknown agent subcommand "${subcommand}"; use register, update or show`);
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    context.io.out(USAGE);
    return 0;
  }
  return await handler(rest, context);
}

export const agentCommand: Command = {
  usage: USAGE,
  run,
};
