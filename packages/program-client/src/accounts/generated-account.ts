import {
  ABAS_SDK__ACCOUNT_DATA_TOO_SHORT,
  ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR,
  ABAS_SDK__INVALID_ACCOUNT_SIZE,
  ABAS_SDK__MALFORMED_ACCOUNT_DATA,
  AbasError,
} from "@abas/errors";
import {
  isSolanaError,
  SOLANA_ERROR__CODECS__CANNOT_DECODE_EMPTY_BYTE_ARRAY,
  SOLANA_ERROR__CODECS__ENUM_DISCRIMINATOR_OUT_OF_RANGE,
  SOLANA_ERROR__CODECS__INVALID_BYTE_LENGTH,
  type Decoder,
  type Encoder,
  type ReadonlyUint8Array,
} from "@solana/kit";

/**
 * An account type as the generated client describes it: its first byte, its decoder and encoder,
 * and the sizes its layout allows when it fixes them.
 */
export type GeneratedAccountLayout<TAccount extends object> = Readonly<{
  accountType: string;
  discriminator: number;
  decoder: Decoder<TAccount>;
  encoder: Encoder<TAccount>;
  /** Checked before decoding: any other size is reported as such. */
  size?: number;
  /** The sizes a valid account has, when there are several (not checked before decoding). */
  sizes?: readonly number[];
}>;

/** The generated decoders type byte fields as read-only; the decoded bytes are copies, the caller's own. */
export type OwnedBytes<T> = {
  readonly [K in keyof T]: T[K] extends ReadonlyUint8Array ? Uint8Array : T[K];
};

export function malformedAccountData(accountType: string, reason: string, field?: string): AbasError {
  return new AbasError(ABAS_SDK__MALFORMED_ACCOUNT_DATA, {
    accountType,
    ...(field === undefined ? {} : { field }),
    reason,
  });
}

const tooShort = (accountType: string, requiredSize: number, actualSize: number) =>
  new AbasError(ABAS_SDK__ACCOUNT_DATA_TOO_SHORT, { accountType, requiredSize, actualSize });

/**
 * Decodes account data with the generated decoder, and checks what the decoder does not: the first
 * byte (another account type), the size, and that the data is exactly what the decoded values
 * encode to, which refuses a bool byte other than 0 or 1, text that is not UTF-8, a length prefix
 * that disagrees with its field, a missing empty count and trailing bytes. Every failure is a named
 * AbasError; no codec error of the generated client gets out.
 */
export function decodeGeneratedAccount<TAccount extends object>(
  layout: GeneratedAccountLayout<TAccount>,
  data: ReadonlyUint8Array,
): TAccount {
  const { accountType } = layout;
  if (data.length === 0) throw tooShort(accountType, 1, 0);
  if (data[0] !== layout.discriminator) {
    throw new AbasError(ABAS_SDK__INVALID_ACCOUNT_DISCRIMINATOR, {
      accountType,
      expected: layout.discriminator,
      actual: data[0]!,
    });
  }
  if (layout.size !== undefined && data.length !== layout.size) {
    throw invalidSize(accountType, layout.size, data.length);
  }
  // A copy, so that no decoded byte field shares memory with the caller's buffer (a Node Buffer's
  // slice does).
  const bytes = Uint8Array.from(data);
  let account: TAccount;
  try {
    account = layout.decoder.decode(bytes);
  } catch (error) {
    throw explainDecodingFailure(layout, bytes, error);
  }
  expectCanonical(layout, bytes, account);
  return account;
}

const invalidSize = (accountType: string, expectedSize: number, actualSize: number) =>
  new AbasError(ABAS_SDK__INVALID_ACCOUNT_SIZE, { accountType, expectedSize, actualSize });

/** How many more bytes a read that ran out of data needed; undefined for any other failure. */
function shortfallOf(error: unknown): number | undefined {
  if (isSolanaError(error, SOLANA_ERROR__CODECS__CANNOT_DECODE_EMPTY_BYTE_ARRAY)) return 1;
  if (isSolanaError(error, SOLANA_ERROR__CODECS__INVALID_BYTE_LENGTH)) {
    return error.context.expected - error.context.bytesLength;
  }
  return undefined;
}

const failureKey = (error: unknown): string =>
  isSolanaError(error) ? JSON.stringify(error.context) : String(error);

/**
 * Whether a read that ran out of bytes ran out of the account's data, rather than out of a
 * length-prefixed field: with one byte appended to the data, a read bounded by its end no longer
 * fails the same way, while a read bounded by a field's length prefix does.
 */
function ranPastTheEnd<TAccount extends object>(
  layout: GeneratedAccountLayout<TAccount>,
  bytes: Uint8Array,
  error: unknown,
): boolean {
  const validSizes = layout.size === undefined ? layout.sizes : [layout.size];
  if (validSizes?.includes(bytes.length)) return false;
  const extended = new Uint8Array(bytes.length + 1);
  extended.set(bytes);
  try {
    layout.decoder.decode(extended);
    return true;
  } catch (again) {
    return failureKey(again) !== failureKey(error);
  }
}

function explainDecodingFailure<TAccount extends object>(
  layout: GeneratedAccountLayout<TAccount>,
  bytes: Uint8Array,
  error: unknown,
): AbasError {
  const shortfall = shortfallOf(error);
  if (shortfall !== undefined) {
    return ranPastTheEnd(layout, bytes, error)
      ? tooShort(layout.accountType, bytes.length + shortfall, bytes.length)
      : malformedAccountData(layout.accountType, "a length prefix disagrees with the field it measures");
  }
  if (isSolanaError(error, SOLANA_ERROR__CODECS__ENUM_DISCRIMINATOR_OUT_OF_RANGE)) {
    return malformedAccountData(
      layout.accountType,
      `an enum byte is ${error.context.discriminator}, expected one of ${error.context.formattedValidDiscriminators}`,
    );
  }
  const cause = isSolanaError(error) ? `codec error ${error.context.__code}` : String(error);
  return malformedAccountData(layout.accountType, `the layout cannot decode it (${cause})`);
}

function expectCanonical<TAccount extends object>(
  layout: GeneratedAccountLayout<TAccount>,
  bytes: Uint8Array,
  account: TAccount,
): void {
  const canonical = layout.encoder.encode(account);
  const common = Math.min(canonical.length, bytes.length);
  for (let offset = 0; offset < common; offset++) {
    if (canonical[offset] !== bytes[offset]) throw notCanonical(layout, bytes, account, canonical, offset);
  }
  // Decoders stop at the end of the data: a count that is missing there reads as an empty list.
  if (canonical.length > bytes.length) throw tooShort(layout.accountType, canonical.length, bytes.length);
  // Accounts are sized exactly, so bytes left after the last field mean the layout is not ours.
  if (canonical.length < bytes.length) throw invalidSize(layout.accountType, canonical.length, bytes.length);
}

type Leaf = Readonly<{ path: readonly string[]; value: unknown }>;

/** Every field of a decoded account, nested structs walked into, in layout order. */
function leavesOf(value: unknown, path: readonly string[] = []): Leaf[] {
  const isStruct =
    typeof value === "object" && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value);
  if (!isStruct) return [{ path, value }];
  return Object.entries(value).flatMap(([key, field]) => leavesOf(field, [...path, key]));
}

function withLeaf(value: unknown, path: readonly string[], leaf: unknown): unknown {
  const [key, ...rest] = path;
  if (key === undefined) return leaf;
  const struct = value as Record<string, unknown>;
  return { ...struct, [key]: withLeaf(struct[key], rest, leaf) };
}

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
const fieldName = (path: readonly string[]): string => snakeCase(path.at(-1) ?? "data");

const hasReplacementCharacter = (value: unknown): boolean =>
  typeof value === "string"
    ? value.includes("\uFFFD")
    : Array.isArray(value) && value.some(hasReplacementCharacter);

/**
 * Names the field whose bytes are not what its value encodes to: text the decoder replaced
 * characters in, or the bool whose byte is at `offset` (found by flipping each bool and seeing
 * which byte its encoding changes).
 */
function notCanonical<TAccount extends object>(
  layout: GeneratedAccountLayout<TAccount>,
  bytes: Uint8Array,
  account: TAccount,
  canonical: ReadonlyUint8Array,
  offset: number,
): AbasError {
  const leaves = leavesOf(account);
  for (const { path, value } of leaves) {
    if (typeof value !== "boolean") continue;
    const flipped = layout.encoder.encode(withLeaf(account, path, !value) as TAccount);
    if (flipped[offset] !== canonical[offset]) {
      const field = fieldName(path);
      return malformedAccountData(
        layout.accountType,
        `${field} is ${bytes[offset]}, expected a bool (0 or 1)`,
        field,
      );
    }
  }
  const text = leaves.find(({ value }) => hasReplacementCharacter(value));
  if (text !== undefined) {
    const field = fieldName(text.path);
    return malformedAccountData(layout.accountType, `${field} is not valid UTF-8`, field);
  }
  return malformedAccountData(
    layout.accountType,
    `byte ${offset} is not what the values decoded from it encode to (a length prefix that disagrees with its field)`,
  );
}
