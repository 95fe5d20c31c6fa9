import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
} from "@/lib/harness";
import { cliFailure, errorResponse, toAppError, toolErrorText } from "./app-error";
import { ModelUnavailableError, RequestError } from "./request-error";

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

describe("the doors of the one mapping", () => {
  const quietly = <T>(fn: () => T): T => {
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      return fn();
    } finally {
      process.stderr.write = write;
    }
  };

  it("answers HTTP with one body shape, the status of the code, and Retry-After when given", async () => {
    const limited = errorResponse(
      new RequestError("rate_limited", "Slow down.", { retryAfterSeconds: 7 }),
    );
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    expect(await limited.json()).toEqual({
      error: "Slow down.",
      code: "request:rate_limited",
      retryAfterSeconds: 7,
    });
    const missing = errorResponse(
      new HarnessNotFoundError({ surface: "chat", message: "No such chat." }),
    );
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: "No such chat.", code: "not_found:chat" });
    const model = errorResponse(new ModelUnavailableError("Not sent.", { stored: true }));
    expect(model.status).toBe(503);
    expect(await model.json()).toEqual({
      error: "Not sent.",
      code: "model:unavailable",
      stored: true,
    });
    for (const [reason, status] of [
      ["unauthenticated", 401],
      ["foreign", 403],
      ["media_type", 415],
      ["too_large", 413],
      ["invalid", 400],
    ] as const) {
      expect(errorResponse(new RequestError(reason, "x")).status).toBe(status);
    }
  });

  it("never sends the details of errors the app did not write for the client", async () => {
    const conflict = errorResponse(
      new HarnessConflictError({ message: "stale", details: { internalPath: "/srv/x" } }),
    );
    expect(await conflict.json()).toEqual({ error: "stale", code: "conflict:harness" });
    const failure = quietly(() => errorResponse(new Error("secret detail")));
    expect(failure.status).toBe(500);
    expect(JSON.stringify(await failure.json())).not.toContain("secret");
  });

  it("gives MCP a tool error for family and input errors and lets server faults through", () => {
    expect(toolErrorText(new HarnessForbiddenError({ surface: "dir", message: "read-only" }))).toBe(
      "forbidden:dir: read-only",
    );
    const zodError = z.object({ title: z.string() }).safeParse({}).error;
    expect(toolErrorText(zodError)).toMatch(/^invalid input: title: /);
    expect(toolErrorText(new Error("disk on fire"))).toBeNull();
    expect(
      quietly(() => toolErrorText(new HarnessError({ code: "failed:store", message: "down" }))),
    ).toBeNull();
  });

  it("gives the CLI exit code 2 for what the operator typed wrong and 1 for the rest", () => {
    expect(cliFailure(new HarnessValidationError({ message: "bad path" }))).toEqual({
      exitCode: 2,
      message: "bad path",
    });
    expect(cliFailure(new HarnessConflictError({ message: "changed" }))).toEqual({
      exitCode: 1,
      message: "changed",
    });
    expect(cliFailure(new Error("ECONNREFUSED 127.0.0.1:5432"))).toEqual({
      exitCode: 1,
      message: "ECONNREFUSED 127.0.0.1:5432",
    });
  });
});
