import { describe, expect, it } from "vitest";
import { z } from "zod";
import { firstSearchValues, parseSearchParams } from "./search-params";

const schema = z.object({ chat: z.string().optional(), path: z.string().max(200).optional() });

describe("parseSearchParams", () => {
  // Issue 14 finding 13: `?chat=a&chat=b` and a 300-character `path` made /harness answer 500.
  it("reads a repeated parameter as its first value", () => {
    expect(firstSearchValues({ chat: ["a", "b"], path: "x", none: undefined })).toEqual({
      chat: "a",
      path: "x",
    });
    expect(parseSearchParams(schema, { chat: ["a", "b"] })).toEqual({
      ok: true,
      data: { chat: "a" },
    });
  });

  it("describes a parameter the schema refuses instead of throwing", () => {
    const result = parseSearchParams(schema, { path: "p".repeat(300) });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.message).toMatch(/path: .*200/);
  });
});
