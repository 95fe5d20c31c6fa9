import { describe, expect, it } from "vitest";
import { HarnessValidationError } from "../errors";
import { assertValidEntry, isReservedEntryId } from "./entry-contracts";
import { entryKeyOf } from "./entry-key";
import { testEntry } from "./internal/test-entry";
import { slugCandidate, slugifyTitle } from "./slug";
import { type Entry } from "./types";

const valid: Entry = testEntry({
  id: "x",
  title: "X",
  content: "content",
  scope: "local",
  chatId: "chat",
});

describe("slugs", () => {
  it("folds, lowercases and bounds titles", () => {
    expect(slugifyTitle({ title: "Project-X: build steps!" })).toBe("project-x-build-steps");
    expect(slugifyTitle({ title: "  Crème brûlée__recipe  " })).toBe("creme-brulee__recipe");
    expect(slugifyTitle({ title: "!!!", fallback: "memory" })).toBe("memory");
    expect(slugifyTitle({ title: `${"a".repeat(79)} b` })).toBe("a".repeat(79));
  });

  it("suffixes candidates within 80 characters and skips the reserved id", () => {
    expect(slugCandidate("build", 1)).toBe("build");
    expect(slugCandidate("build", 3)).toBe("build-3");
    expect(slugCandidate("a".repeat(80), 12)).toBe(`${"a".repeat(77)}-12`);
    expect(slugCandidate("base_system_prompt", 1)).toBe("base_system_prompt-2");
    expect(isReservedEntryId("base-system-prompt")).toBe(true);
  });
});

describe("entry keys", () => {
  it("tells scopes, chats and kinds apart", () => {
    expect(entryKeyOf({ scope: "global", chatId: null, kind: "memory", id: "a" })).toBe(
      "global/-/memory/a",
    );
    expect(entryKeyOf({ scope: "local", chatId: "c/1", kind: "memory", id: "a" })).toBe(
      "local/c%2F1/memory/a",
    );
  });
});

describe("assertValidEntry", () => {
  it("accepts a valid entry", () => {
    expect(() => assertValidEntry(valid)).not.toThrow();
  });

  it("reports every problem in one error", () => {
    const error = (() => {
      try {
        assertValidEntry({ ...valid, title: "", content: "", scope: "global" });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(HarnessValidationError);
    expect((error as HarnessValidationError).code).toBe("validation:entry");
    expect((error as Error).message).toMatch(/title: must not be empty/);
    expect((error as Error).message).toMatch(/content: must not be empty/);
    expect((error as Error).message).toMatch(/a global entry belongs to no chat/);
  });

  it("counts the content limit in UTF-8 bytes", () => {
    expect(() => assertValidEntry({ ...valid, content: "é".repeat(32 * 1024) })).not.toThrow();
    expect(() => assertValidEntry({ ...valid, content: "é".repeat(32 * 1024 + 1) })).toThrow(
      /65536 bytes/,
    );
  });

  it("requires JSON metadata", () => {
    expect(() =>
      assertValidEntry({
        ...valid,
        metadata: { when: new Date() } as unknown as Record<string, unknown>,
      }),
    ).toThrow(HarnessValidationError);
  });
});
