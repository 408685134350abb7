/**
 * A Wallet Standard wallet for the browser tests, registered the way real wallets register
 * (`wallet-standard:register-wallet`, and again on `wallet-standard:app-ready`). Its key lives in
 * the Node test process: signing calls the function the test exposes to the page. It builds the
 * Sign-In With Solana message itself from the input and the page's own host, as a wallet does,
 * independently of the app's code.
 */
import type { Wallet, WalletAccount, WalletIcon } from "@wallet-standard/base";

interface TestWalletConfig {
  readonly name: string;
  readonly address: string;
  /** The public key, base64. */
  readonly publicKey: string;
  /** Offer `solana:signIn` (otherwise only `solana:signMessage`). */
  readonly signIn: boolean;
}

declare global {
  interface Window {
    __abasTestWallet: TestWalletConfig;
    /** Exposed by the test: Ed25519-signs base64 message bytes, returns the base64 signature. */
    abasTestWalletSign(messageBase64: string): Promise<string>;
  }
}

const config = window.__abasTestWallet;
const CHAINS = ["solana:localnet", "solana:devnet", "solana:mainnet"] as const;
const ICON: WalletIcon =
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PHJlY3Qgd2lkdGg9IjMyIiBoZWlnaHQ9IjMyIiByeD0iOCIgZmlsbD0iIzdjM2FlZCIvPjxjaXJjbGUgY3g9IjE2IiBjeT0iMTYiIHI9IjciIGZpbGw9IiNmZmYiLz48L3N2Zz4=";

const bytes = (base64: string): Uint8Array => Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
const base64 = (data: Uint8Array): string => btoa(String.fromCharCode(...data));

const features = config.signIn
  ? (["solana:signIn", "solana:signMessage"] as const)
  : (["solana:signMessage"] as const);
const account: WalletAccount = {
  address: config.address,
  publicKey: bytes(config.publicKey),
  chains: CHAINS,
  features,
};

let accounts: readonly WalletAccount[] = [];
const listeners = new Set<(properties: { accounts: readonly WalletAccount[] }) => void>();

async function sign(message: Uint8Array): Promise<Uint8Array> {
  return bytes(await window.abasTestWalletSign(base64(message)));
}

function connect() {
  accounts = [account];
  for (const listener of listeners) listener({ accounts });
  return { accounts };
}

interface SignInInput {
  readonly domain?: string;
  readonly statement?: string;
  readonly uri?: string;
  readonly version?: string;
  readonly chainId?: string;
  readonly nonce?: string;
  readonly issuedAt?: string;
  readonly expirationTime?: string;
}

/** The message format of the Wallet Standard's signIn, the wallet's own implementation. */
function signInMessage(input: SignInInput): string {
  const lines = [
    input.uri && `URI: ${input.uri}`,
    input.version && `Version: ${input.version}`,
    input.chainId && `Chain ID: ${input.chainId}`,
    input.nonce && `Nonce: ${input.nonce}`,
    input.issuedAt && `Issued At: ${input.issuedAt}`,
    input.expirationTime && `Expiration Time: ${input.expirationTime}`,
  ].filter(Boolean);
  return (
    `${input.domain ?? window.location.host} wants you to sign in with your Solana account:\n${config.address}` +
    (input.statement ? `\n\n${input.statement}` : "") +
    (lines.length > 0 ? `\n\n${lines.join("\n")}` : "")
  );
}

const wallet: Wallet = {
  version: "1.0.0",
  name: config.name,
  icon: ICON,
  chains: CHAINS,
  get accounts() {
    return accounts;
  },
  features: {
    "standard:connect": { version: "1.0.0", connect: async () => connect() },
    "standard:events": {
      version: "1.0.0",
      on: (_event: "change", listener: (properties: { accounts: readonly WalletAccount[] }) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    "solana:signMessage": {
      version: "1.1.0",
      signMessage: async (...inputs: { account: WalletAccount; message: Uint8Array }[]) =>
        Promise.all(
          inputs.map(async ({ message }) => ({ signedMessage: message, signature: await sign(message) })),
        ),
    },
    ...(config.signIn
      ? {
          "solana:signIn": {
            version: "1.0.0",
            signIn: async (...inputs: SignInInput[]) => {
              connect();
              return Promise.all(
                inputs.map(async (input) => {
                  // A wallet refuses to sign in to another site than the one asking.
                  if (input.domain !== undefined && input.domain !== window.location.host) {
                    throw new Error(`refusing to sign in to ${input.domain} from ${window.location.host}`);
                  }
                  const signedMessage = new TextEncoder().encode(signInMessage(input));
                  return { account, signedMessage, signature: await sign(signedMessage) };
                }),
              );
            },
          },
        }
      : {}),
  },
};

type RegisterCallback = (api: { register(wallet: Wallet): () => void }) => void;
const callback: RegisterCallback = ({ register }) => register(wallet);

class RegisterWalletEvent extends Event {
  readonly detail: RegisterCallback;
  constructor(detail: RegisterCallback) {
    super("wallet-standard:register-wallet", { bubbles: false, cancelable: false, composed: false });
    this.detail = detail;
  }
}

window.dispatchEvent(new RegisterWalletEvent(callback));
window.addEventListener("wallet-standard:app-ready", (event) => {
  callback((event as CustomEvent<{ register(wallet: Wallet): () => void }>).detail);
});
