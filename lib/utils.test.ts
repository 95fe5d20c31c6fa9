import { describe, expect, it } from "vitest";
import { queryOf } from "./utils";

describe("queryOf", () => {
  it("keeps the parameters that have a value, in order", () => {
    expect(
      queryOf({ scope: "global", q: "", chat: undefined, cursor: null, kind: "memory" }).toString(),
    ).toBe("scope=global&kind=memory");
    expect(queryOf({}).toString()).toBe("");
  });
});
