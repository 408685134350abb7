/**
 * Key pairs from the forms Solana users keep them in. Secret key bytes are checked synchronously
 * (so a client rejects a bad key in its constructor, before any network call), then turned into a
 * kit `KeyPairSigner` whose private key is not extractable.
 */
import { ABAS_SDK__INVALID_KEY_PAIR, AbasError } from "@abas/errors";
import {
  createKeyPairSignerFromBytes,
  getAddressDecoder,
  getBase58Encoder,
  isKeyPairSigner,
  type Address,
  type KeyPairSigner,
} from "@solana/kit";

// node:fs and node:crypto in Node.js, refusal and @noble/curves elsewhere (package.json `imports`).
import { publicKeyOfSeed, readKeyFile } from "#platform";

/**
 * A key pair as the SDK accepts it: a kit `KeyPairSigner`; the 64 bytes of a Solana secret key
 * (32-byte seed then 32-byte public key) as a `Uint8Array` or an array of numbers; that secret key
 * in base58 (as wallets export it); a JSON array of its 64 numbers; or the path of a Solana CLI key
 * file such as `~/.config/solana/id.json`.
 */
export type KeypairSource = KeyPairSigner | Uint8Array | readonly number[] | string;

const SECRET_KEY_SIZE = 64;
const SEED_SIZE = 32;
// 64 bytes are 86 to 88 base58 characters; file names this long and only base58 letters are not
// paths anyone uses, so such a string is read as a key and never echoed in a "cannot read" error.
const BASE58_KEY_PATTERN = /^[1-9A-HJ-NP-Za-km-z]{64,}$/;

/**
 * A fresh key pair in the Solana CLI's layout, 32 random bytes of seed then their Ed25519 public
 * key: what `solana-keygen new` writes, and what every `KeypairSource` accepts as bytes.
 */
export function generateSecretKey(): Uint8Array {
  const secretKey = new Uint8Array(SECRET_KEY_SIZE);
  const seed = secretKey.subarray(0, SEED_SIZE);
  globalThis.crypto.getRandomValues(seed);
  secretKey.set(publicKeyOfSeed(seed), SEED_SIZE);
  return secretKey;
}

function invalidKeyPair(name: string, reason: string, cause?: unknown): AbasError {
  return new AbasError(ABAS_SDK__INVALID_KEY_PAIR, {
    reason: `${name} ${reason}`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Checks that the last 32 bytes are the public key of the first 32, as Solana key files hold them. */
function assertSecretKeyBytes(bytes: Uint8Array, name: string): Uint8Array {
  if (bytes.length !== SECRET_KEY_SIZE) {
    throw invalidKeyPair(
      name,
      `is ${bytes.length} bytes; a Solana secret key is ${SECRET_KEY_SIZE} (seed, then public key)`,
    );
  }
  const derived = publicKeyOfSeed(bytes.subarray(0, SEED_SIZE));
  if (!derived.every((byte, i) => byte === bytes[SEED_SIZE + i])) {
    throw invalidKeyPair(name, "holds a public key that does not belong to its seed");
  }
  return bytes;
}

function bytesFromNumbers(numbers: readonly unknown[], name: string): Uint8Array {
  if (!numbers.every((n) => typeof n === "number" && Number.isInteger(n) && n >= 0 && n <= 255)) {
    throw invalidKeyPair(name, "must hold only integers from 0 to 255");
  }
  return Uint8Array.from(numbers as number[]);
}

function bytesFromJsonArray(text: string, name: string): Uint8Array {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidKeyPair(name, `is not JSON; expected an array of ${SECRET_KEY_SIZE} numbers`);
  }
  if (!Array.isArray(parsed)) {
    throw invalidKeyPair(name, `is not a JSON array of ${SECRET_KEY_SIZE} numbers`);
  }
  return bytesFromNumbers(parsed, name);
}

/** A path as people write them; a string that is not one may be a key mistyped or cut short. */
const looksLikePath = (text: string): boolean =>
  /[\\/]/.test(text) || text.startsWith("~") || text.startsWith(".") || /\.json$/i.test(text);

/**
 * A key file's errors name the file, whatever is wrong with what it holds. A string that is neither
 * a key nor a readable file is named only when it looks like a path: otherwise it may be a key
 * with a typo, and is not shown (nor is the file system's error, which repeats it).
 */
function keyFromKeyFile(path: string, name: string): Uint8Array {
  const read = readKeyFile(path);
  if (!read.ok && !looksLikePath(path)) {
    throw invalidKeyPair(
      name,
      "is neither a secret key (base58, or a JSON array of 64 numbers) nor a key file that can be read; " +
        "it is not shown, as it may be a mistyped key",
    );
  }
  if (!read.ok) throw invalidKeyPair(name, read.reason, read.cause);
  const named = `${name} (key file ${read.path})`;
  return assertSecretKeyBytes(bytesFromJsonArray(read.text, named), named);
}

function keyFromString(source: string, name: string): Uint8Array {
  const text = source.trim();
  if (text.startsWith("[")) return assertSecretKeyBytes(bytesFromJsonArray(text, name), name);
  if (BASE58_KEY_PATTERN.test(text)) {
    return assertSecretKeyBytes(Uint8Array.from(getBase58Encoder().encode(text)), name);
  }
  if (text === "") throw invalidKeyPair(name, "is an empty string");
  return keyFromKeyFile(text, name);
}

/**
 * The 64 secret key bytes of `source`, checked: the right length, and a public key that belongs to
 * the seed. Synchronous (a key file is read synchronously). Throws `ABAS_SDK__INVALID_KEY_PAIR`
 * whose reason names `name` and never includes key material.
 */
export function readSecretKeyBytes(
  source: Exclude<KeypairSource, KeyPairSigner>,
  name = "keypair",
): Uint8Array {
  if (source instanceof Uint8Array) return assertSecretKeyBytes(Uint8Array.from(source), name);
  if (Array.isArray(source)) return assertSecretKeyBytes(bytesFromNumbers(source, name), name);
  if (typeof source === "string") return keyFromString(source, name);
  throw invalidKeyPair(
    name,
    `${describeValue(source)}; expected a KeyPairSigner, secret key bytes, a base58 secret key or a key file path`,
  );
}

function describeValue(value: unknown): string {
  if (value === null) return "is null";
  if (value === undefined) return "is missing";
  return typeof value === "object" ? "is an object that is not a KeyPairSigner" : `is a ${typeof value}`;
}

/**
 * A key pair checked now and turned into a signer on first use. Its address is known at once, so
 * a client can derive its accounts and reject a bad key before it talks to the network.
 */
export type PreparedKeypair = Readonly<{
  address: Address;
  getSigner: () => Promise<KeyPairSigner>;
}>;

/** Any object that is neither bytes nor an array of numbers is meant to be a signer. */
function isMeantAsSigner(source: KeypairSource): source is KeyPairSigner {
  return (
    typeof source === "object" && source !== null && !(source instanceof Uint8Array) && !Array.isArray(source)
  );
}

export function prepareKeypair(source: KeypairSource, name = "keypair"): PreparedKeypair {
  if (isMeantAsSigner(source)) {
    if (!isKeyPairSigner(source)) throw invalidKeyPair(name, describeValue(source));
    return { address: source.address, getSigner: () => Promise.resolve(source) };
  }
  const secretKey = readSecretKeyBytes(source as Exclude<KeypairSource, KeyPairSigner>, name);
  const address = getAddressDecoder().decode(secretKey.subarray(SEED_SIZE));
  let signer: Promise<KeyPairSigner> | undefined;
  return {
    address,
    getSigner: () => {
      signer ??= createKeyPairSignerFromBytes(secretKey)
        .catch((error: unknown) => {
          throw invalidKeyPair(name, "could not be imported as an Ed25519 key", error);
        })
        .finally(() => secretKey.fill(0));
      return signer;
    },
  };
}

/**
 * A kit `KeyPairSigner` from any `KeypairSource`: secret key bytes (checked: the public key must
 * belong to the seed), a base58 secret key, a JSON array, or a Solana CLI key file path.
 */
export async function loadKeypair(source: KeypairSource, name = "keypair"): Promise<KeyPairSigner> {
  return await prepareKeypair(source, name).getSigner();
}
