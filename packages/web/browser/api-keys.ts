/** The signed-in API-keys page: create a key (shown once), revoke one, sign out. */
import { postJson, showError } from "./http.js";

interface CreatedKey {
  readonly key: string;
}

async function refreshTable(): Promise<void> {
  const response = await fetch("/app/api-keys/table", { cache: "no-store" });
  if (!response.ok) throw new Error("Could not reload the list of keys: reload the page.");
  const current = document.querySelector("[data-keys-table]");
  if (current) current.outerHTML = await response.text();
}

export function startApiKeys(form: HTMLFormElement): void {
  const errorBox = document.querySelector<HTMLElement>("[data-keys-error]");
  const newKey = document.querySelector<HTMLElement>("[data-new-key]");
  const newKeyValue = document.querySelector<HTMLElement>("[data-new-key-value]");

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = form.elements.namedItem("name") as HTMLInputElement;
    const button = form.querySelector("button");
    void (async () => {
      if (button) button.disabled = true;
      if (errorBox) errorBox.hidden = true;
      try {
        const created = await postJson<CreatedKey>("/app/api-keys", { name: input.value });
        if (newKey && newKeyValue) {
          newKeyValue.textContent = created.key;
          newKey.hidden = false;
        }
        input.value = "";
        await refreshTable();
      } catch (error) {
        showError(errorBox, error);
      } finally {
        if (button) button.disabled = false;
      }
    })();
  });

  document.querySelector("[data-copy-new-key]")?.addEventListener("click", () => {
    void navigator.clipboard?.writeText(newKeyValue?.textContent ?? "");
  });

  document.addEventListener("click", (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>("button[data-revoke]");
    if (button === null) return;
    const name = button.dataset.name ?? "this key";
    if (!window.confirm(`Revoke "${name}"? Requests with it are refused within 2 seconds.`)) return;
    void (async () => {
      button.disabled = true;
      try {
        await postJson(`/app/api-keys/${encodeURIComponent(button.dataset.revoke ?? "")}/revoke`);
        if (newKey) newKey.hidden = true;
        await refreshTable();
      } catch (error) {
        showError(errorBox, error);
        button.disabled = false;
      }
    })();
  });

  document.querySelector("[data-sign-out]")?.addEventListener("click", () => {
    void postJson("/app/auth/sign-out").then(
      () => window.location.reload(),
      (error: unknown) => showError(errorBox, error),
    );
  });
}
