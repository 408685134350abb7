/**
 * The receipts page: the visitor opens a receipts folder (folder picker, file picker, or drag and
 * drop); every file is read in the browser and sent to the server, which says what it records and
 * whether it verifies against the ledger. Files are listed first, then verified one after another
 * with a progress bar; a file that is not a receipt is shown with its error and the rest go on.
 */
import { formatUtcShort, shortKey } from "../src/html/format.js";
import { postJson, RequestFailed } from "./http.js";

/** The parts of the server's answers this script shows (see src/ledger/receipt-files.ts). */
interface Problem {
  readonly code: number;
  readonly codeName: string;
  readonly message: string;
}

interface ReceiptSummary {
  /** The tool called, or the action's type; null when the action was not kept. */
  readonly action: string | null;
  readonly outcome: "ok" | "error" | "unknown";
  readonly agent: string;
  readonly actionType: string;
  readonly actionHash: string;
  readonly privacyMode: boolean;
  readonly batchAddress: string;
  readonly index: number;
  readonly itemCount: number;
  readonly txSignature: string;
  readonly slot: number;
  readonly recordedAt: string;
}

type ReadAnswer = { receipt: ReceiptSummary } | { error: Problem };
/** Or the server did not answer. */
type ReadOutcome = ReadAnswer | { unavailable: string };
type VerifyAnswer =
  { status: "verified" } | { status: "failed"; error: Problem } | { status: "unavailable"; message: string };

type Status = "pending" | "verified" | "failed" | "unreadable" | "unavailable";

interface PickedFile {
  /** The path inside the opened folder (or the file name). */
  readonly name: string;
  readonly file: File;
}

interface Row {
  readonly name: string;
  readonly text: string;
  readonly receipt?: ReceiptSummary;
  readonly element: HTMLTableRowElement;
  status: Status;
}

/** Requests in flight at once: enough to keep the ledger busy, few enough to leave it responsive. */
const CONCURRENCY = 4;

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  attributes: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

function link(href: string, text: string, attributes: Record<string, string> = {}): HTMLAnchorElement {
  return element("a", text, { href, ...attributes });
}

const attestationPath = (id: string): string => `/app/attestations/${encodeURIComponent(id)}`;

/** Runs `work` on every item, `CONCURRENCY` at a time, in order of start. */
async function eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asks the server to check one receipt. The server limits checks per client (each costs the ledger
 * requests): when it says to wait, this waits as long as it says, telling `onWait` the seconds
 * (and `undefined` once the wait is over), then asks again.
 */
async function verifyAllowed(
  verifyPath: string,
  row: { name: string; text: string },
  onWait: (seconds: number | undefined) => void,
): Promise<VerifyAnswer> {
  for (;;) {
    try {
      return await postJson<VerifyAnswer>(verifyPath, { file: row.name, content: row.text });
    } catch (error) {
      if (!(error instanceof RequestFailed) || error.status !== 429) throw error;
      const seconds = error.retryAfterSeconds ?? 1;
      onWait(seconds);
      await sleep(seconds * 1000);
      onWait(undefined);
    }
  }
}

function describeFailure(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function statusCell(status: Status, detail?: { problem?: Problem; message?: string }): HTMLTableCellElement {
  const labels: Record<Status, string> = {
    pending: "Waiting",
    verified: "Verified on the ledger",
    failed: "Failed",
    unreadable: "Not a receipt",
    unavailable: "Ledger not checked",
  };
  const cell = element("td", undefined, {
    class: `receipt-status receipt-status-${status}`,
    "data-status-cell": "",
  });
  cell.append(labels[status]);
  if (detail?.problem !== undefined) {
    cell.append(element("small", `${detail.problem.codeName} ${detail.problem.code}`, { "data-code": "" }));
    cell.append(element("small", detail.problem.message, { "data-message": "" }));
  } else if (detail?.message !== undefined) {
    cell.append(element("small", detail.message, { "data-message": "" }));
  }
  return cell;
}

function renderRow(name: string, answer: ReadOutcome): HTMLTableRowElement {
  const row = element("tr", undefined, { "data-file": name });
  if (!("receipt" in answer)) {
    const cell = element("td", undefined, { colspan: "5", class: "mono break" });
    cell.textContent = name;
    if ("error" in answer) {
      row.dataset.status = "unreadable";
      row.append(cell, statusCell("unreadable", { problem: answer.error }));
    } else {
      row.dataset.status = "unavailable";
      row.append(cell, statusCell("unavailable", { message: answer.unavailable }));
    }
    return row;
  }
  const { receipt } = answer;
  row.dataset.status = "pending";
  row.dataset.actionHash = receipt.actionHash;
  const recorded = element("td");
  recorded.append(
    link(
      attestationPath(`${receipt.batchAddress}:${receipt.index}`),
      formatUtcShort(Date.parse(receipt.recordedAt) / 1000),
      {
        title: `the ledger's time; the receipt's page (batch item ${receipt.index + 1} of ${receipt.itemCount})`,
      },
    ),
  );
  const agent = element("td");
  agent.append(
    link(`/app/agents/${encodeURIComponent(receipt.agent)}`, shortKey(receipt.agent), {
      class: "mono",
      title: receipt.agent,
    }),
  );
  const action = element("td");
  action.append(element("span", receipt.action ?? "(call not kept)", { class: "mono" }));
  if (receipt.outcome === "error")
    action.append(
      " ",
      element("span", "error", { class: "tag tag-plain", title: "the tool call ended in an error" }),
    );
  const hash = element("td", shortKey(receipt.actionHash, 8), { class: "mono", title: receipt.actionHash });
  const batch = element("td");
  batch.append(
    link(attestationPath(receipt.txSignature), `item ${receipt.index + 1}/${receipt.itemCount}`, {
      title: `batch ${receipt.batchAddress}`,
      "data-batch-link": "",
    }),
  );
  row.append(recorded, agent, action, hash, batch, statusCell("pending"));
  return row;
}

function byLedgerOrder(a: Row, b: Row): number {
  if (a.receipt === undefined || b.receipt === undefined) {
    return Number(a.receipt === undefined) - Number(b.receipt === undefined) || a.name.localeCompare(b.name);
  }
  return (
    a.receipt.slot - b.receipt.slot ||
    a.receipt.batchAddress.localeCompare(b.receipt.batchAddress) ||
    a.receipt.index - b.receipt.index
  );
}

/** The files of a dropped folder (and its subfolders), through the File and Directory Entries API. */
async function filesOfEntry(entry: FileSystemEntry, path: string): Promise<PickedFile[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) =>
      (entry as FileSystemFileEntry).file(resolve, reject),
    );
    return [{ name: `${path}${entry.name}`, file }];
  }
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) =>
      reader.readEntries(resolve, reject),
    );
    if (batch.length === 0) break;
    children.push(...batch);
  }
  const nested = await Promise.all(children.map((child) => filesOfEntry(child, `${path}${entry.name}/`)));
  return nested.flat();
}

async function droppedFiles(transfer: DataTransfer): Promise<PickedFile[]> {
  const entries = [...transfer.items]
    .map((item) => item.webkitGetAsEntry?.() ?? null)
    .filter((entry): entry is FileSystemEntry => entry !== null);
  if (entries.length === 0) return [...transfer.files].map((file) => ({ name: file.name, file }));
  return (await Promise.all(entries.map((entry) => filesOfEntry(entry, "")))).flat();
}

/** With receipts of several agents, a choice of one agent's rows. */
function showAgentFilter(bar: HTMLElement, rows: readonly Row[]): void {
  const select = bar.querySelector<HTMLSelectElement>("select[data-agent-filter]")!;
  const counts = new Map<string, number>();
  for (const { receipt } of rows) {
    if (receipt !== undefined) counts.set(receipt.agent, (counts.get(receipt.agent) ?? 0) + 1);
  }
  bar.hidden = counts.size < 2;
  const all = element("option", `all ${counts.size} agents (${rows.length} files)`, { value: "" });
  select.replaceChildren(
    all,
    ...[...counts].map(([agent, count]) =>
      element("option", `${shortKey(agent)} (${count} receipt${count === 1 ? "" : "s"})`, { value: agent }),
    ),
  );
  select.onchange = () => {
    for (const row of rows) row.element.hidden = select.value !== "" && row.receipt?.agent !== select.value;
  };
}

const pickedFiles = (input: HTMLInputElement): PickedFile[] =>
  [...(input.files ?? [])].map((file) => ({ name: file.webkitRelativePath || file.name, file }));

export function startReceiptsFolder(root: HTMLElement): void {
  const readPath = root.dataset.readPath!;
  const verifyPath = root.dataset.verifyPath!;
  const maxFileBytes = Number(root.dataset.maxFileBytes);
  const tooLarge = JSON.parse(root.dataset.tooLarge!) as Problem;
  const result = root.querySelector<HTMLElement>("[data-receipts-result]")!;
  const progress = root.querySelector<HTMLProgressElement>("[data-progress]")!;
  const progressText = root.querySelector<HTMLElement>("[data-progress-text]")!;
  const summary = root.querySelector<HTMLElement>("[data-summary]")!;
  const tableCard = document.querySelector<HTMLElement>("[data-receipts-table-card]")!;
  const body = document.querySelector<HTMLTableElement>("[data-receipts-table]")!.tBodies[0]!;
  const dropZone = root.querySelector<HTMLElement>("[data-drop-zone]")!;
  const agentFilterBar = document.querySelector<HTMLElement>("[data-agent-filter-bar]")!;
  let run = 0;

  function showSummary(rows: readonly Row[], done: boolean): void {
    const count = (status: Status) => rows.filter((row) => row.status === status).length;
    const verified = count("verified");
    const failed = count("failed");
    const unreadable = count("unreadable");
    const unavailable = count("unavailable");
    const receipts = rows.length - unreadable;
    summary.dataset.verified = String(verified);
    summary.dataset.failed = String(failed);
    summary.dataset.unreadable = String(unreadable);
    summary.dataset.unavailable = String(unavailable);
    summary.dataset.done = String(done);
    const parts = [`${verified}/${receipts} receipt${receipts === 1 ? "" : "s"} verified`];
    if (failed > 0) parts.push(`${failed} failed`);
    if (unavailable > 0) parts.push(`${unavailable} not checked (the ledger did not answer)`);
    if (unreadable > 0) parts.push(`${unreadable} file${unreadable === 1 ? " is" : "s are"} not a receipt`);
    summary.textContent = done ? parts.join(", ") : `Verifying… ${parts.join(", ")}`;
    const verdict = verified === receipts && unreadable === 0 ? "all-verified" : "some-failed";
    summary.className = `receipts-summary ${done ? verdict : ""}`;
  }

  async function open(files: readonly PickedFile[]): Promise<void> {
    const thisRun = ++run;
    body.replaceChildren();
    result.hidden = false;
    tableCard.hidden = false;
    progress.max = Math.max(files.length, 1);
    progress.value = 0;
    progressText.textContent = `reading ${files.length} file${files.length === 1 ? "" : "s"}`;
    summary.textContent = "";

    // 1. What each file records.
    const rows: Row[] = [];
    await eachLimited(files, async ({ name, file }) => {
      const text = file.size > maxFileBytes ? "" : await file.text();
      let answer: ReadOutcome;
      try {
        answer =
          file.size > maxFileBytes
            ? { error: tooLarge }
            : await postJson<ReadAnswer>(readPath, { file: name, content: text });
      } catch (error) {
        answer = { unavailable: `The server did not answer: ${describeFailure(error)}` };
      }
      const element = renderRow(name, answer);
      rows.push({
        name,
        text,
        ...("receipt" in answer ? { receipt: answer.receipt } : {}),
        element,
        status: element.dataset.status as Status,
      });
    });
    if (thisRun !== run) return;
    rows.sort(byLedgerOrder);
    body.replaceChildren(...rows.map((row) => row.element));
    showAgentFilter(agentFilterBar, rows);

    // 2. Each receipt against the ledger.
    const receipts = rows.filter((row) => row.receipt !== undefined);
    let checked = 0;
    /** Checks waiting because the server limits them, and the last wait it asked for. */
    let waiting = 0;
    let waitSeconds = 0;
    progress.max = Math.max(receipts.length, 1);
    const showProgress = () => {
      progress.value = checked;
      progressText.textContent =
        `${checked}/${receipts.length} checked against the ledger` +
        (waiting > 0 ? `; the server limits checks, waiting ${waitSeconds} s` : "");
    };
    showProgress();
    showSummary(rows, false);
    await eachLimited(receipts, async (row) => {
      let cell: HTMLTableCellElement;
      try {
        const answer = await verifyAllowed(verifyPath, row, (seconds) => {
          waiting += seconds === undefined ? -1 : 1;
          if (seconds !== undefined) waitSeconds = seconds;
          showProgress();
        });
        row.status = answer.status;
        cell =
          answer.status === "verified"
            ? statusCell("verified")
            : answer.status === "failed"
              ? statusCell("failed", { problem: answer.error })
              : statusCell("unavailable", { message: answer.message });
      } catch (error) {
        row.status = "unavailable";
        cell = statusCell("unavailable", { message: describeFailure(error) });
      }
      if (thisRun !== run) return;
      row.element.dataset.status = row.status;
      row.element.querySelector("[data-status-cell]")!.replaceWith(cell);
      checked += 1;
      showProgress();
      showSummary(rows, false);
    });
    if (thisRun !== run) return;
    progress.value = progress.max;
    showSummary(rows, true);
  }

  for (const input of root.querySelectorAll<HTMLInputElement>("input[type=file]")) {
    input.addEventListener("change", () => {
      void open(pickedFiles(input));
      input.value = "";
    });
  }
  dropZone.addEventListener("dragover", (event) => {
    event.preventDefault();
    dropZone.classList.add("dragging");
  });
  dropZone.addEventListener("dragleave", () => dropZone.classList.remove("dragging"));
  dropZone.addEventListener("drop", (event) => {
    event.preventDefault();
    dropZone.classList.remove("dragging");
    if (event.dataTransfer !== null) void droppedFiles(event.dataTransfer).then(open);
  });
}
