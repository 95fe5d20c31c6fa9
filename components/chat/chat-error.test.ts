import { describe, expect, it } from "vitest";
import { describeChatError } from "./chat-error";

describe("describeChatError", () => {
  it("shows the server's message for a busy chat", () => {
    const body = JSON.stringify({
      error: "A reply is still being written.",
      code: "conflict:chat",
    });
    expect(describeChatError(new Error(body))).toEqual({
      message: "A reply is still being written.",
      busy: true,
    });
  });

  it("shows other JSON errors' text and plain messages as they are", () => {
    expect(describeChatError(new Error('{"error":"No such chat."}'))).toEqual({
      message: "No such chat.",
      busy: false,
    });
    expect(describeChatError(new Error("network down"))).toEqual({
      message: "network down",
      busy: false,
    });
    expect(describeChatError(new Error(""))).toEqual({ message: "The reply failed.", busy: false });
  });
});

describe("failedReplyText", () => {
  it("ends with one full stop whatever the error ends with", async () => {
    const { failedReplyText } = await import("./chat-error");
    expect(failedReplyText("Try again in a moment.")).toBe(
      "The reply failed: Try again in a moment. Nothing was saved.",
    );
    expect(failedReplyText("The model is busy")).toBe(
      "The reply failed: The model is busy. Nothing was saved.",
    );
    expect(failedReplyText(null)).toBe("The reply failed. Nothing was saved.");
  });
});
