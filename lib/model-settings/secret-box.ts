import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * API keys saved on Admin → Settings → Model are stored sealed: AES-256-GCM under a key derived
 * from `AUTH_SECRET` with HKDF-SHA-256 (its own `info`, so it is not the spool's or the
 * sessions' key). Text form: `v1.<iv>.<tag>.<ciphertext>`, each base64url. Decision 0043.
 */
export type ModelKeyring = Uint8Array;

const VERSION = "v1";

/** The key that seals saved API keys, from the server's `AUTH_SECRET`. */
export function modelKeyFromSecret(secret: string): ModelKeyring {
  if (secret.trim() === "") throw new Error("AUTH_SECRET is empty: it cannot seal API keys.");
  return new Uint8Array(hkdfSync("sha256", secret, "cairn", "cairn model api key", 32));
}

/** `plain` sealed under `key`: a fresh random IV each time, so equal keys do not look equal. */
export function sealSecret(plain: string, key: ModelKeyring): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv, tag, data]
    .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
    .join(".");
}

/** Thrown when a sealed value cannot be opened: another `AUTH_SECRET`, or a damaged value. */
export class SealedSecretUnreadable extends Error {
  constructor() {
    super(
      "The saved API key cannot be read: AUTH_SECRET has changed since it was saved (or the value is damaged). An admin must enter the key again on Admin → Settings → Model.",
    );
    this.name = "SealedSecretUnreadable";
  }
}

/** The text `sealSecret` sealed; throws `SealedSecretUnreadable` under another key. */
export function openSecret(sealed: string, key: ModelKeyring): string {
  const [version, iv, tag, data] = sealed.split(".");
  if (version !== VERSION || !iv || !tag || data === undefined) throw new SealedSecretUnreadable();
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
    decipher.setAuthTag(Buffer.from(tag, "base64url"));
    return Buffer.concat([
      decipher.update(Buffer.from(data, "base64url")),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new SealedSecretUnreadable();
  }
}
