/**
 * The ledger's RPC URL as the proxy logs it: its origin, with anything after it (where RPC
 * providers put API keys: a path such as `/v2/<key>`, or `?api-key=`) and any user or password left
 * out, so the host's logs never hold a credential.
 */
export function ledgerAddressForLog(rpcUrl: string): string {
  const url = new URL(rpcUrl);
  return url.pathname === "/" && url.search === "" ? url.origin : `${url.origin}/…`;
}
