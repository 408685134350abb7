/** Requests of the page to its own server: JSON in and out, the page's CSRF token in a header. */
export class RequestFailed extends Error {
  override readonly name = "RequestFailed";

  constructor(
    message: string,
    readonly status: number,
    /** The server's Retry-After, in seconds, when it sent one. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(message);
  }
}

export function csrfToken(): string {
  return document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";
}

export async function postJson<T>(path: string, body: unknown = {}): Promise<T> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-csrf-token": csrfToken() },
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  const answer = (await response.json().catch(() => ({}))) as { message?: string };
  if (!response.ok) {
    const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
    throw new RequestFailed(
      answer.message ?? `The server answered ${response.status}.`,
      response.status,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
  return answer as T;
}

export function showError(element: HTMLElement | null, error: unknown): void {
  if (element === null) return;
  element.textContent = error instanceof Error ? error.message : String(error);
  element.hidden = false;
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
