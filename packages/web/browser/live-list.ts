/**
 * The recent-attestations table keeps itself current: every few seconds it asks the server for the
 * newest rows (rendered by the same code as the page) and swaps them in, marking the new ones.
 * It pauses while the tab is hidden.
 */
const POLL_INTERVAL_MS = 2_500;

export function startLiveList(table: HTMLTableElement): void {
  const source = table.dataset.liveSource;
  const body = table.tBodies[0];
  if (source === undefined || body === undefined) return;
  const status = document.querySelector<HTMLElement>("[data-live-status]");
  let busy = false;

  const idsOf = (root: ParentNode): string[] =>
    [...root.querySelectorAll<HTMLTableRowElement>("tr[data-id]")].map((row) => row.dataset.id ?? "");

  async function refresh(): Promise<void> {
    if (busy || document.hidden) return;
    busy = true;
    try {
      const response = await fetch(source!, { headers: { accept: "text/html" }, cache: "no-store" });
      if (!response.ok) throw new Error(String(response.status));
      const rows = await response.text();
      const before = new Set(idsOf(body!));
      const incoming = document.createElement("tbody");
      incoming.innerHTML = rows;
      const after = idsOf(incoming);
      if (after.join(" ") === [...before].join(" ")) return;
      body!.innerHTML = rows;
      for (const row of body!.querySelectorAll<HTMLTableRowElement>("tr[data-id]")) {
        if (before.size > 0 && !before.has(row.dataset.id ?? "")) row.classList.add("fresh");
      }
      status?.classList.remove("live-paused");
    } catch {
      status?.classList.add("live-paused");
    } finally {
      busy = false;
    }
  }

  setInterval(() => void refresh(), POLL_INTERVAL_MS);
  document.addEventListener("visibilitychange", () => void refresh());
}
