import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "@/lib/harness";
import { toAppError } from "./app-error";

describe("toAppError", () => {
  it("maps core errors to statuses and keeps their messages", () => {
    expect(toAppError(new HarnessValidationError({ message: "bad" }))).toMatchObject({
      status: 400,
      message: "bad",
    });
    expect(toAppError(new HarnessForbiddenError({ message: "no" }))).toMatchObject({ status: 403 });
    expect(toAppError(new HarnessNotFoundError({ message: "gone" }))).toMatchObject({
      status: 404,
    });
    expect(toAppError(new HarnessConflictError({ message: "stale" }))).toMatchObject({
      status: 409,
    });
    expect(
      toAppError(new HarnessError({ code: "refine:not_pending", message: "not pending" })),
    ).toMatchObject({ status: 409 });
  });

  it("maps zod and Prisma errors, and hides unknown ones", () => {
    const zodError = z.object({ title: z.string() }).safeParse({}).error;
    expect(toAppError(zodError)).toMatchObject({ status: 400, code: "validation:input" });
    expect(toAppError({ code: "P2002" })).toMatchObject({ status: 409, code: "conflict:record" });
    expect(toAppError({ code: "P2025" })).toMatchObject({ status: 404, code: "not_found:record" });
    const original = console.error;
    console.error = () => {};
    try {
      expect(toAppError(new Error("secret detail"))).toEqual({
        status: 500,
        code: "failed:internal",
        message: "Something went wrong. Try again.",
      });
    } finally {
      console.error = original;
    }
  });
});
