/**
 * What a start that found one of its ports taken tells the user: the address, and the setting that
 * moves the ledger (or the service around it) to another port.
 */

/**
 * The message for `error` when it is a listen that failed because the port is in use, and
 * `settings` names the setting of that port (`LEDGER_RPC_PORT=<port>`, say); undefined otherwise.
 */
export function portInUseMessage(error: unknown, settings: ReadonlyMap<number, string>): string | undefined {
  const { code, address, port } = error as NodeJS.ErrnoException & { address?: string; port?: number };
  if (code !== "EADDRINUSE" || port === undefined) return undefined;
  const setting = settings.get(port);
  if (setting === undefined) return undefined;
  return `${address}:${port} is in use by another process (another npm start or abas-ledger?): stop it, or choose another port with ${setting}`;
}
