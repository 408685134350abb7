/** The web app's one script: it wires up whatever the server-rendered page contains. */
import { startApiKeys } from "./api-keys.js";
import { startLiveList } from "./live-list.js";
import { startReceiptsFolder } from "./receipts-folder.js";
import { startWalletSignIn } from "./wallet-sign-in.js";

function startCopyButtons(): void {
  document.addEventListener("click", (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>("button[data-copy]");
    if (button === null) return;
    void navigator.clipboard?.writeText(button.dataset.copy ?? "").then(() => {
      const label = button.textContent;
      button.textContent = "Copied";
      setTimeout(() => (button.textContent = label), 1500);
    });
  });
}

function start(): void {
  startCopyButtons();
  const live = document.querySelector<HTMLTableElement>("table[data-live-source]");
  if (live) startLiveList(live);
  const signIn = document.querySelector<HTMLElement>("[data-sign-in]");
  if (signIn) startWalletSignIn(signIn);
  const createKey = document.querySelector<HTMLFormElement>("form[data-create-key]");
  if (createKey) startApiKeys(createKey);
  const receipts = document.querySelector<HTMLElement>("[data-receipts]");
  if (receipts) startReceiptsFolder(receipts);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
