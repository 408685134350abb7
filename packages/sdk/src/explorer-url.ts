/**
 * Links to the Solana Explorer. The cluster is read from the RPC address: public devnet, testnet
 * and mainnet-beta endpoints (Solana's own and the providers' that name the cluster in their host
 * name) get the Explorer's named cluster; any other node is a custom cluster. A node on this
 * machine (the local ledger) is named in the link, its scheme, host, port and path only, so the
 * Explorer queries it itself; any other node's address is left out, since links are shared and an
 * RPC address often carries its provider's key (in its query, its path or its user info): the
 * Explorer then uses the custom node its user set.
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

const LOOPBACK_HOST = /^(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])$/;

/** The node's address to put in a shared link: a loopback node's, without user info, query or fragment. */
function customUrlOf(rpcUrl: string): string | undefined {
  let url: URL;
  try {
    url = new URL(rpcUrl);
  } catch {
    return undefined;
  }
  if (!LOOPBACK_HOST.test(url.hostname.toLowerCase())) return undefined;
  return `${url.protocol}//${url.host}${url.pathname === "/" ? "" : url.pathname}`;
}

function explorerQuery(rpcUrl: string): string {
  const cluster = getExplorerCluster(rpcUrl);
  switch (cluster) {
    case "mainnet-beta":
      return "";
    case "custom": {
      const customUrl = customUrlOf(rpcUrl);
      return customUrl === undefined
        ? "?cluster=custom"
        : `?cluster=custom&customUrl=${encodeURIComponent(customUrl)}`;
    }
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
