import { describe, expect, it } from "vitest";
import { modelKeyFromSecret, openSecret, sealSecret, SealedSecretUnreadable } from "./secret-box";

describe("sealed API keys", () => {
  const key = modelKeyFromSecret("the server's AUTH_SECRET");

  it("opens what it sealed, and never holds the key in the clear", () => {
    const sealed = sealSecret("sk-live-1234567890", key);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain("sk-live");
    expect(openSecret(sealed, key)).toBe("sk-live-1234567890");
    // A fresh IV every time: equal keys do not look equal at rest.
    expect(sealSecret("sk-live-1234567890", key)).not.toBe(sealed);
  });

  it("refuses under another AUTH_SECRET or when the value was changed, in words", () => {
    const sealed = sealSecret("sk-live-1234567890", key);
    const rotated = modelKeyFromSecret("a new AUTH_SECRET");
    expect(() => openSecret(sealed, rotated)).toThrow(SealedSecretUnreadable);
    expect(() => openSecret(sealed, rotated)).toThrow(/AUTH_SECRET has changed/);
    const [version, iv, tag, data] = sealed.split(".");
    const flipped = `${version}.${iv}.${tag}.${data!.slice(0, -2)}AA`;
    expect(() => openSecret(flipped, key)).toThrow(SealedSecretUnreadable);
    expect(() => openSecret("plain-text", key)).toThrow(SealedSecretUnreadable);
  });

  it("derives a key of its own, not the spool's, and needs a secret", () => {
    expect(Buffer.from(key).length).toBe(32);
    expect(() => modelKeyFromSecret("  ")).toThrow(/AUTH_SECRET/);
  });
});
