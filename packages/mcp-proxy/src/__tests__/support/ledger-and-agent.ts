/**
 * A real `abas-ledger` process and a registered agent whose key files are on disk, as a user of
 * the proxy has them: the agent's key and the operator's (funded from the ledger's faucet).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { spawnLedgerProcess, type LedgerProcess } from "@abas/ledger";
import { AttestationClient, generateSecretKey } from "@abas/sdk";
import { createKeyPairSignerFromBytes, createSolanaRpc, lamports } from "@solana/kit";

export type LedgerAndAgent = Readonly<{
  ledger: LedgerProcess;
  rpcUrl: string;
  programId: string;
  agentAddress: string;
  agentKeypairFile: string;
  operatorKeypairFile: string;
  /** A fresh folder for this run's files, removed by `stop`. */
  workDir: string;
  stop: () => Promise<void>;
}>;

export async function startLedgerWithAgent(): Promise<LedgerAndAgent> {
  const workDir = mkdtempSync(join(tmpdir(), "abas-mcp-proxy-"));
  const ledger = await spawnLedgerProcess({ dataDir: join(workDir, "ledger") });
  const agentKey = generateSecretKey();
  const operatorKey = generateSecretKey();
  const agentKeypairFile = join(workDir, "agent.json");
  const operatorKeypairFile = join(workDir, "operator.json");
  writeFileSync(agentKeypairFile, JSON.stringify([...agentKey]), { mode: 0o600 });
  writeFileSync(operatorKeypairFile, JSON.stringify([...operatorKey]), { mode: 0o600 });

  const rpc = createSolanaRpc(ledger.rpcUrl);
  const operator = await createKeyPairSignerFromBytes(operatorKey);
  await rpc.requestAirdrop(operator.address, lamports(100_000_000_000n)).send();
  while ((await rpc.getBalance(operator.address).send()).value === 0n) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const client = new AttestationClient({
    rpcUrl: ledger.rpcUrl,
    agentKeypair: agentKeypairFile,
    programId: ledger.programId,
  });
  await client.registerAgent({ operatorKeypair: operatorKeypairFile });
  return {
    ledger,
    rpcUrl: ledger.rpcUrl,
    programId: ledger.programId,
    agentAddress: client.agentAddress,
    agentKeypairFile,
    operatorKeypairFile,
    workDir,
    stop: async () => {
      await ledger.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
}
