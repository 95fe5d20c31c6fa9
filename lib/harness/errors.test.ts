import { describe, expect, it } from "vitest";
import {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "./errors";

const classes = [
  HarnessValidationError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessConflictError,
] as const;

describe("the core's error family", () => {
  it("tells every class apart with isInstance", () => {
    for (const Made of classes) {
      const error = new Made({ message: "x" });
      for (const Asked of classes) {
        expect(Asked.isInstance(error), `${Asked.name}.isInstance(new ${Made.name})`).toBe(
          Asked === Made,
        );
      }
      expect(HarnessError.isInstance(error)).toBe(true);
    }
  });

  it("is not fooled by plain errors, look-alikes or a base error", () => {
    const base = new HarnessError({ code: "failed:store", message: "x" });
    for (const Asked of classes) expect(Asked.isInstance(base)).toBe(false);
    for (const value of [new Error("x"), null, "validation:input", { code: "conflict:entry" }]) {
      expect(HarnessError.isInstance(value)).toBe(false);
    }
  });

  it("keeps a typed code, its type, details and cause", () => {
    const cause = new Error("root");
    const error = new HarnessConflictError({
      message: "stale",
      surface: "entry",
      details: { id: "a" },
      cause,
    });
    expect(error).toMatchObject({ code: "conflict:entry", type: "conflict", details: { id: "a" } });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe("HarnessConflictError");
  });
});
