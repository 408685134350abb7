import { createSolanaRpc, generateKeyPairSigner, lamports, type KeyPairSigner } from "@solana/kit";

/**
 * An agent key and an operator key made for one run of an example, the operator funded from the
 * ledger's faucet (it pays fees and rent). Real agents load theirs with
 * loadKeypair("~/.config/solana/agent.json"). Without a ledger at `rpcUrl` the example stops with
 * a line that says so (exit code 1).
 */
export async function exampleKeys(
  rpcUrl: string,
): Promise<{ agentKeypair: KeyPairSigner; operatorKeypair: KeyPairSigner }> {
  const agentKeypair = await generateKeyPairSigner();
  const operatorKeypair = await generateKeyPairSigner();
  const rpc = createSolanaRpc(rpcUrl);
  try {
    await rpc.getSlot().send({ abortSignal: AbortSignal.timeout(5000) });
  } catch (error) {
    console.error(
      `No ledger answers at ${rpcUrl} (${error instanceof Error ? error.message : String(error)}): ` +
        "start the service with npm start (in another terminal), then run the example again.",
    );
    process.exit(1);
  }
  await rpc.requestAirdrop(operatorKeypair.address, lamports(1_000_000_000n)).send();
  while ((await rpc.getBalance(operatorKeypair.address).send()).value === 0n) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { agentKeypair, operatorKeypair };
}
