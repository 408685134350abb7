/**
 * Links to the Solana Explorer. The cluster is read from the RPC address: public devnet, testnet
 * and mainnet-beta endpoints (Solana's own and the providers' that name the cluster in their host
 * name) get the Explorer's named cluster; any other node, such as the local ledger, is passed as a
 * custom cluster so the Explorer queries that node itself.
 */
export type ExplorerCluster = "mainnet-beta" | "devnet" | "testnet" | "custom";

const EXPLORER_BASE_URL = "https://explorer.solana.com";

/** `devnet` as a whole word of the host name: `api.devnet.solana.com`, `solana-devnet.example.com`. */
const hostNames = (word: string): RegExp => new RegExp(`(^|[.-])${word}([.-]|$)`);
const CLUSTER_HOST_PATTERNS: readonly (readonly [Exclude<ExplorerCluster, "custom">, RegExp])[] = [
  ["devnet", hostNames("devnet")],
  ["testnet", hostNames("testnet")],
  ["mainnet-beta", hostNames("mainnet")],
];

export function getExplorerCluster(rpcUrl: string): ExplorerCluster {
  let hostname: string;
  try {
    hostname = new URL(rpcUrl).hostname.toLowerCase();
  } catch {
    return "custom";
  }
  return CLUSTER_HOST_PATTERNS.find(([, pattern]) => pattern.test(hostname))?.[0] ?? "custom";
}

function explorerQuery(rpcUrl: string): string {
  const cluster = getExplorerCluster(rpcUrl);
  switch (cluster) {
    case "mainnet-beta":
      return "";
    case "custom":
      return `?cluster=custom&customUrl=${encodeURIComponent(rpcUrl)}`;
    default:
      return `?cluster=${cluster}`;
  }
}

/** `https://explorer.solana.com/tx/<signature>` with the cluster of `rpcUrl`. */
export function getTransactionExplorerUrl(signature: string, rpcUrl: string): string {
  return `${EXPLORER_BASE_URL}/tx/${signature}${explorerQuery(rpcUrl)}`;
}

/** `https://explorer.solana.com/address/<address>` with the cluster of `rpcUrl`. */
export function getAddressExplorerUrl(address: string, rpcUrl: string): string {
  return `${EXPLORER_BASE_URL}/address/${address}${explorerQuery(rpcUrl)}`;
}
