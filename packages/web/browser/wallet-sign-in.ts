/**
 * Sign-In With Solana through the Wallet Standard: every wallet the page discovers with
 * `getWallets()` that can sign in gets a button. With `solana:signIn` the wallet builds and shows
 * the message itself; otherwise the page connects (`standard:connect`), builds the same message and
 * asks for `solana:signMessage`. The server checks the signature and the one-time nonce.
 */
import {
  SolanaSignIn,
  SolanaSignMessage,
  type SolanaSignInFeature,
  type SolanaSignMessageFeature,
} from "@solana/wallet-standard-features";
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";

import { createSignInMessageText } from "../src/auth/siws-message.js";
import { postJson, showError, toBase64 } from "./http.js";

const StandardConnect = "standard:connect";

type ConnectFeature = {
  readonly [StandardConnect]: {
    readonly version: string;
    readonly connect: (input?: {
      readonly silent?: boolean;
    }) => Promise<{ readonly accounts: readonly WalletAccount[] }>;
  };
};

interface SignInChallenge {
  readonly domain: string;
  readonly statement: string;
  readonly uri: string;
  readonly version: string;
  readonly chainId: string;
  readonly nonce: string;
  readonly issuedAt: string;
  readonly expirationTime: string;
}

interface SignedMessage {
  readonly address: string;
  readonly message: Uint8Array;
  readonly signature: Uint8Array;
}

function hasFeature<F extends string>(wallet: Wallet, feature: F): boolean {
  return feature in wallet.features;
}

function canSignIn(wallet: Wallet): boolean {
  const solana = wallet.chains.some((chain) => chain.startsWith("solana:"));
  return (
    solana &&
    (hasFeature(wallet, SolanaSignIn) ||
      (hasFeature(wallet, StandardConnect) && hasFeature(wallet, SolanaSignMessage)))
  );
}

async function signWith(wallet: Wallet, challenge: SignInChallenge): Promise<SignedMessage> {
  if (hasFeature(wallet, SolanaSignIn)) {
    const { signIn } = (wallet.features as SolanaSignInFeature)[SolanaSignIn];
    const [output] = await signIn({ ...challenge });
    if (output === undefined) throw new Error("The wallet returned no signature.");
    return { address: output.account.address, message: output.signedMessage, signature: output.signature };
  }
  const { connect } = (wallet.features as ConnectFeature)[StandardConnect];
  const { accounts } = await connect();
  const account = accounts.find((candidate) => candidate.chains.some((chain) => chain.startsWith("solana:")));
  if (account === undefined) throw new Error("The wallet shared no Solana account.");
  const message = new TextEncoder().encode(
    createSignInMessageText({ ...challenge, address: account.address }),
  );
  const { signMessage } = (wallet.features as SolanaSignMessageFeature)[SolanaSignMessage];
  const [output] = await signMessage({ account, message });
  if (output === undefined) throw new Error("The wallet returned no signature.");
  return { address: account.address, message: output.signedMessage, signature: output.signature };
}

async function signIn(
  wallet: Wallet,
  button: HTMLButtonElement,
  errorBox: HTMLElement | null,
): Promise<void> {
  button.disabled = true;
  if (errorBox) errorBox.hidden = true;
  try {
    const challenge = await postJson<SignInChallenge>("/app/auth/challenge");
    const signed = await signWith(wallet, challenge);
    await postJson("/app/auth/verify", {
      address: signed.address,
      message: toBase64(signed.message),
      signature: toBase64(signed.signature),
    });
    window.location.reload();
  } catch (error) {
    showError(errorBox, error);
    button.disabled = false;
  }
}

function walletButton(wallet: Wallet, errorBox: HTMLElement | null): HTMLButtonElement {
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.wallet = wallet.name;
  const icon = document.createElement("img");
  icon.src = wallet.icon;
  icon.alt = "";
  button.append(icon, `Sign in with ${wallet.name}`);
  button.addEventListener("click", () => void signIn(wallet, button, errorBox));
  return button;
}

export function startWalletSignIn(panel: HTMLElement): void {
  const list = panel.querySelector<HTMLElement>("[data-wallets]");
  const errorBox = panel.querySelector<HTMLElement>("[data-sign-in-error]");
  if (list === null) return;
  const wallets = getWallets();
  const render = () => {
    const usable = wallets.get().filter(canSignIn);
    list.replaceChildren(...usable.map((wallet) => walletButton(wallet, errorBox)));
    if (usable.length === 0) {
      const note = document.createElement("span");
      note.className = "muted";
      note.textContent =
        "No Solana wallet found in this browser. Install one that supports the Wallet Standard (Phantom, Solflare, Backpack), then reload.";
      list.append(note);
    }
  };
  wallets.on("register", render);
  wallets.on("unregister", render);
  render();
}
