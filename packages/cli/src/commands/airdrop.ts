/**
 * `abas airdrop <address|keypair> [--sol <amount>]`: SOL from the ledger's faucet (`requestAirdrop`:
 * the local ledger, devnet, testnet), confirmed, and the balance after it.
 */
import { innermostMessage } from "@abas/errors";
import { address, createSolanaRpc, lamports, type Signature } from "@solana/kit";

import { printResult, type CommandContext } from "../cli-io.js";
import { loadKeypairOption, parseAddressReference } from "../clients.js";
import { GLOBAL_OPTIONS_HELP, parseOptions, resolveGlobalSettings } from "../parse-options.js";
import { isConnectionFailure, shownLedger } from "../report-error.js";
import { CommandFailure, UsageError } from "../usage-error.js";
import type { Command } from "./command.js";

const DEFAULT_SOL = "2";
const LAMPORTS_PER_SOL = 1_000_000_000n;
/** How long the transfer may take to be confirmed, and how often its status is asked. */
const CONFIRM_TIMEOUT_MS = 60_000;
const POLL_MS = 250;

const USAGE = `Usage: abas airdrop <address|keypair> [--sol <amount>] [--json]

Asks the ledger's faucet for SOL (requestAirdrop: the local ledger of npm start or abas-ledger,
devnet, testnet; mainnet has none), waits until the transfer is confirmed and prints the balance.
  <address|keypair>  the account to fund: its base58 address, or its key file (abas keygen)
  --sol <amount>     how much, in SOL (default ${DEFAULT_SOL}; devnet's faucet limits each request)

${GLOBAL_OPTIONS_HELP}`;

/** Lamports as SOL, without trailing zeros: 2_250_000_000n is "2.25". */
function sol(amount: bigint): string {
  const fraction = (amount % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return fraction === "" ? `${amount / LAMPORTS_PER_SOL}` : `${amount / LAMPORTS_PER_SOL}.${fraction}`;
}

/** The most lamports a JSON-RPC request carries as a number (2^53 - 1): about 9,007,199 SOL. */
const MAX_LAMPORTS = BigInt(Number.MAX_SAFE_INTEGER);

/** "1.5" SOL as 1,500,000,000 lamports: a positive decimal with at most 9 decimals. */
function parseSol(value: string): bigint {
  const match = /^(\d{1,16})(?:\.(\d{1,9}))?$/.exec(value);
  const amount =
    match === null ? 0n : BigInt(match[1]!) * LAMPORTS_PER_SOL + BigInt((match[2] ?? "").padEnd(9, "0"));
  if (amount === 0n) {
    throw new UsageError(
      `--sol "${value}" is not an amount of SOL greater than 0 (e.g. 2 or 0.5; at most 9 decimals)`,
    );
  }
  if (amount > MAX_LAMPORTS) {
    throw new UsageError(`--sol "${value}" is more than one request can carry (${sol(MAX_LAMPORTS)} SOL)`);
  }
  return amount;
}

async function run(args: readonly string[], { io, env }: CommandContext): Promise<number> {
  const { values, positionals } = parseOptions(args, { sol: { type: "string" } });
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "missing <address|keypair>: the account to fund"
        : `unexpected argument "${positionals[1]}"`,
    );
  }
  const settings = resolveGlobalSettings(values, env);
  const amount = parseSol(values.sol ?? DEFAULT_SOL);
  const reference = parseAddressReference(positionals[0]!, "<address|keypair>", "account");
  const recipient = address(
    "address" in reference
      ? reference.address
      : (await loadKeypairOption(reference.path, "<keypair>")).address,
  );
  const rpc = createSolanaRpc(settings.rpcUrl);
  const ledger = shownLedger(settings);

  let signature: Signature;
  try {
    signature = await rpc.requestAirdrop(recipient, lamports(amount), { commitment: "confirmed" }).send();
  } catch (error) {
    if (isConnectionFailure(error)) throw error;
    throw new CommandFailure(
      `the ledger at ${ledger} refused the airdrop of ${sol(amount)} SOL: ${innermostMessage(error)}`,
      {},
      "a ledger without a faucet (mainnet) cannot airdrop: transfer SOL to the account from a funded wallet; " +
        "devnet's faucet limits each request and each day (ask for less, or use https://faucet.solana.com)",
    );
  }

  const deadline = Date.now() + CONFIRM_TIMEOUT_MS;
  for (;;) {
    const [status] = (await rpc.getSignatureStatuses([signature]).send()).value;
    if (status?.err) {
      throw new CommandFailure(
        `the airdrop's transaction ${signature} failed: ${JSON.stringify(status.err, (_key, value: unknown) => (typeof value === "bigint" ? Number(value) : value))}`,
      );
    }
    if (status?.confirmationStatus === "confirmed" || status?.confirmationStatus === "finalized") break;
    if (Date.now() > deadline) {
      throw new CommandFailure(
        `the airdrop's transaction ${signature} was not confirmed by ${ledger} within ${CONFIRM_TIMEOUT_MS / 1000} s; it may still arrive`,
        { signature },
      );
    }
    await new Promise((wake) => setTimeout(wake, POLL_MS));
  }
  const balance = (await rpc.getBalance(recipient, { commitment: "confirmed" }).send()).value;
  printResult(
    io,
    values.json,
    { address: recipient, lamports: Number(amount), balanceLamports: Number(balance), signature },
    `Airdropped ${sol(amount)} SOL to ${recipient}; balance ${sol(balance)} SOL\n  transaction  ${signature}`,
  );
  return 0;
}

export const airdropCommand: Command = {
  usage: USAGE,
  run,
};
