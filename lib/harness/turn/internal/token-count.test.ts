import { describe, expect, it } from "vitest";
import { countPromptTokens } from "../../store";
import { countTokensRemembered } from "./token-count";

describe("countTokensRemembered", () => {
  it("gives the tokenizer's count, the first time and the next", () => {
    for (const text of [
      "",
      "Hello, world.",
      "line one\nline two\n\n- a list",
      "<|endoftext|> as text",
    ]) {
      expect(countTokensRemembered(text)).toBe(countPromptTokens(text));
      expect(countTokensRemembered(text)).toBe(countPromptTokens(text));
    }
    const long = "word ".repeat(50_000);
    expect(countTokensRemembered(long)).toBe(countPromptTokens(long));
  });
});
