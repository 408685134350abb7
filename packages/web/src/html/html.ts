/**
 * HTML from template literals with one escaping rule: every interpolated value is escaped unless it
 * is itself the result of `html`, so markup can only come from the templates in this package.
 */
const SAFE = Symbol("safe html");

export interface SafeHtml {
  readonly [SAFE]: true;
  readonly text: string;
}

type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** The one escaping helper: text safe inside element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

function isSafeHtml(value: unknown): value is SafeHtml {
  return typeof value === "object" && value !== null && SAFE in value;
}

function render(value: Interpolation): string {
  if (value === null || value === undefined || value === false) return "";
  if (isSafeHtml(value)) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1]!;
  });
  return { [SAFE]: true, text };
}

/** Markup this package produced by other means (a bundled asset's tag, say); never user input. */
export function trustedHtml(text: string): SafeHtml {
  return { [SAFE]: true, text };
}
