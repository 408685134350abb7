/**
 * The Sign-In With Solana message text (the format of the Wallet Standard's `solana:signIn`,
 * modelled on EIP-4361), written and read field by field. Used by the server to check what a wallet
 * signed, and by the browser script to build the message for wallets that only offer
 * `solana:signMessage`. No Node or DOM dependency: it is bundled for the browser as it is.
 *
 *   ${domain} wants you to sign in with your Solana account:
 *   ${address}
 *
 *   ${statement}
 *
 *   URI: ${uri}
 *   Version: ${version}
 *   Chain ID: ${chainId}
 *   Nonce: ${nonce}
 *   Issued At: ${issuedAt}
 *   Expiration Time: ${expirationTime}
 */
export interface SignInFields {
  readonly domain: string;
  readonly address: string;
  readonly statement?: string;
  readonly uri?: string;
  readonly version?: string;
  readonly chainId?: string;
  readonly nonce?: string;
  readonly issuedAt?: string;
  readonly expirationTime?: string;
  readonly notBefore?: string;
  readonly requestId?: string;
  readonly resources?: readonly string[];
}

const HEADER = " wants you to sign in with your Solana account:";

const FIELD_LABELS = [
  ["uri", "URI"],
  ["version", "Version"],
  ["chainId", "Chain ID"],
  ["nonce", "Nonce"],
  ["issuedAt", "Issued At"],
  ["expirationTime", "Expiration Time"],
  ["notBefore", "Not Before"],
  ["requestId", "Request ID"],
] as const;

export function createSignInMessageText(fields: SignInFields): string {
  let message = `${fields.domain}${HEADER}\n${fields.address}`;
  if (fields.statement) message += `\n\n${fields.statement}`;
  const lines: string[] = [];
  for (const [key, label] of FIELD_LABELS) {
    const value = fields[key];
    if (value) lines.push(`${label}: ${value}`);
  }
  if (fields.resources) {
    lines.push("Resources:");
    for (const resource of fields.resources) lines.push(`- ${resource}`);
  }
  if (lines.length > 0) message += `\n\n${lines.join("\n")}`;
  return message;
}

/**
 * The fields of a message in exactly this format, or undefined. Strict on purpose: the text is
 * re-created from the parsed fields and must come out byte for byte the same, so nothing a wallet
 * shows the user can hide outside the fields the server checks.
 */
export function parseSignInMessageText(text: string): SignInFields | undefined {
  const headerEnd = text.indexOf("\n");
  const firstLine = headerEnd === -1 ? text : text.slice(0, headerEnd);
  if (!firstLine.endsWith(HEADER)) return undefined;
  const domain = firstLine.slice(0, -HEADER.length);
  const rest = text.slice(headerEnd + 1).split("\n\n");
  const address = rest.shift();
  // The domain is an RFC 3986 authority (host and port): no spaces, no path.
  if (!/^[^\s/]+$/.test(domain) || !address || address.includes("\n")) return undefined;

  let statement: string | undefined;
  const fieldBlock = rest.at(-1)?.split("\n") ?? [];
  const fieldsFollow =
    fieldBlock.length > 0 && FIELD_LABELS.some(([, label]) => fieldBlock[0]!.startsWith(`${label}: `));
  if (rest.length === 2 || (rest.length === 1 && !fieldsFollow)) statement = rest[0];
  else if (rest.length > 2) return undefined;

  const fields: Record<string, string | string[]> = {};
  if (fieldsFollow) {
    let resources: string[] | undefined;
    for (const line of fieldBlock) {
      if (resources !== undefined) {
        if (!line.startsWith("- ")) return undefined;
        resources.push(line.slice(2));
        continue;
      }
      if (line === "Resources:") {
        resources = [];
        fields.resources = resources;
        continue;
      }
      const entry = FIELD_LABELS.find(([, label]) => line.startsWith(`${label}: `));
      if (entry === undefined || fields[entry[0]] !== undefined) return undefined;
      fields[entry[0]] = line.slice(entry[1].length + 2);
    }
  }
  const parsed = {
    domain,
    address,
    ...(statement === undefined ? {} : { statement }),
    ...fields,
  } as SignInFields;
  return createSignInMessageText(parsed) === text ? parsed : undefined;
}
