import { describe, expect, it } from "vitest";
import { createId } from "./create-id";

describe("createId", () => {
  it("makes ids in the shape of the schema's cuid(): 25 lower-case base-36 characters after a c", () => {
    const ids = Array.from({ length: 10_000 }, () => createId());
    for (const id of ids.slice(0, 100)) expect(id).toMatch(/^c[0-9a-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
