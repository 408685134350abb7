import { createSolanaRpc, generateKeyPairSigner, lamports, type KeyPairSigner } from "@solana/kit";

/**
 * An agent key and an operator key made for one run of an example, the operator funded from the
 * ledger's faucet (it pays fees and rent). Real agents load theirs with
 * loadKeypair("~/.config/solana/agent.json").
 */
export async function exampleKeys(
  rpcUrl: string,
): Promise<{ agentKeypair: KeyPairSigner; operatorKeypair: KeyPairSigner }> {
  const agentKeypair = await generateKeyPairSigner();
  const operatorKeypair = await generateKeyPairSigner();
  const rpc = createSolanaRpc(rpcUrl);
  await rpc.requestAirdrop(operatorKeypair.address, lamports(1_000_000_000n)).send();
  while ((await rpc.getBalance(operatorKeypair.address).send()).value === 0n) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { agentKeypair, operatorKeypair };
}
