import { describe, expect, it } from "vitest";
import { safeReturnPath, signInPathFor } from "./return-path";

describe("the page to return to after sign-in", () => {
  it("keeps a path on this site with its query", () => {
    expect(safeReturnPath("/memory")).toBe("/memory");
    expect(safeReturnPath("/files?dir=company&path=a.md")).toBe("/files?dir=company&path=a.md");
    expect(signInPathFor("/memory")).toBe("/sign-in?callbackUrl=%2Fmemory");
  });

  it("never sends anyone to another site or back to sign-in", () => {
    for (const raw of [
      "https://evil.example/x",
      "//evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      "memory",
      "/sign-in",
      "/sign-up?invite=x",
      "/api/chat",
      "/x\u0000y",
      "",
      null,
      undefined,
    ])
      expect(safeReturnPath(raw)).toBe("/chat");
    expect(signInPathFor("//evil.example")).toBe("/sign-in");
  });
});
