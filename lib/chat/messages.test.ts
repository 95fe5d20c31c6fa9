import { describe, expect, it } from "vitest";
import {
  incomingMessageSchema,
  MAX_CHAT_REQUEST_BYTES,
  MAX_USER_MESSAGE_CHARS,
  MAX_USER_MESSAGE_PARTS,
} from "./messages";

const message = (...texts: string[]) => ({
  id: "m1",
  role: "user",
  parts: texts.map((text) => ({ type: "text", text })),
});

describe("incomingMessageSchema", () => {
  it("accepts a message of 32,000 characters, in one part or several", () => {
    expect(
      incomingMessageSchema.safeParse(message("x".repeat(MAX_USER_MESSAGE_CHARS))).success,
    ).toBe(true);
    expect(
      incomingMessageSchema.safeParse(message(...Array<string>(4).fill("y".repeat(8_000)))).success,
    ).toBe(true);
  });

  it("counts all parts: 20 parts of 32,000 characters are refused with a clear message", () => {
    const parsed = incomingMessageSchema.safeParse(
      message(...Array<string>(20).fill("x".repeat(MAX_USER_MESSAGE_CHARS))),
    );
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.message)).toEqual([
      "The message is too long: at most 32,000 characters in all its parts together (this one has 640,000).",
    ]);
    expect(
      incomingMessageSchema.safeParse(message("x".repeat(16_000), "y".repeat(16_001))).success,
    ).toBe(false);
  });

  it("caps the number of parts", () => {
    const parsed = incomingMessageSchema.safeParse(
      message(...Array<string>(MAX_USER_MESSAGE_PARTS + 1).fill("a")),
    );
    expect(parsed.error?.issues[0]?.message).toBe("A message has at most 20 parts.");
  });

  it("leaves room in the request body limit for the longest message, escaped", () => {
    const body = JSON.stringify({
      chatId: "c".repeat(100),
      message: { ...message("\u0001".repeat(MAX_USER_MESSAGE_CHARS)), id: "i".repeat(100) },
      mode: "regenerate",
    });
    expect(Buffer.byteLength(body)).toBeLessThan(MAX_CHAT_REQUEST_BYTES);
  });
});
