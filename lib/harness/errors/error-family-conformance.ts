import { describe, expect, it } from "vitest";
import { z } from "zod";
import { JournalWriteError } from "../persistent/durability";
import { FailedCommitsQuotaError } from "../persistent/failed-commits-quota-error";
import { FrontmatterError } from "../portability";
import { RefinementError } from "../refine/refinement-error";
import {
  describeError,
  HarnessConflictError,
  HarnessError,
  HarnessForbiddenError,
  HarnessNotFoundError,
  HarnessValidationError,
  httpStatusOf,
  toErrorInfo,
  toPublicError,
} from ".";

/** One class of the error family: how to make an instance, and the class it extends (besides the base). */
export interface ErrorFamilyMember {
  // `isInstance` is what is tested; the constructor's arguments vary by class.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  Class: (abstract new (...args: any[]) => HarnessError) & {
    isInstance(error: unknown): boolean;
  };
  make(): HarnessError;
  parent?: ErrorFamilyMember["Class"];
}

/** Every class of the core, one instance each, and their HTTP statuses in that order. */
export const coreErrorFamily: readonly ErrorFamilyMember[] = [
  { Class: HarnessValidationError, make: () => new HarnessValidationError({ message: "x" }) },
  { Class: HarnessForbiddenError, make: () => new HarnessForbiddenError({ message: "x" }) },
  { Class: HarnessNotFoundError, make: () => new HarnessNotFoundError({ message: "x" }) },
  { Class: HarnessConflictError, make: () => new HarnessConflictError({ message: "x" }) },
  { Class: RefinementError, make: () => new RefinementError({ reason: "locked", message: "x" }) },
  {
    Class: FrontmatterError,
    make: () => new FrontmatterError("x", 3),
    parent: HarnessValidationError,
  },
  {
    Class: FailedCommitsQuotaError,
    make: () =>
      new FailedCommitsQuotaError({ owner: "user:x", limitBytes: 1, usedBytes: 1, addedBytes: 1 }),
    parent: HarnessValidationError,
  },
  { Class: JournalWriteError, make: () => new JournalWriteError({ message: "x" }) },
];
export const coreErrorStatuses = [400, 403, 404, 409, 409, 400, 400, 500];

/**
 * The error family's contract, for the classes given: `isInstance` tells every one apart and is
 * not fooled; codes, details and causes are kept; the one mapping gives each its `statuses` (in
 * order) and user text. `failed` is a family error whose status is 500: it shows its message but
 * is logged too.
 */
export function runErrorFamilyConformance(
  name: string,
  options: {
    family: readonly ErrorFamilyMember[];
    statuses: number[];
    failed: HarnessError;
  },
): void {
  const { family } = options;

  describe(name, () => {
    it("tells every class apart with isInstance", () => {
      for (const made of family) {
        const error = made.make();
        for (const asked of family) {
          const expected = asked.Class === made.Class || asked.Class === made.parent;
          expect(
            asked.Class.isInstance(error),
            `${asked.Class.name}.isInstance(new ${made.Class.name})`,
          ).toBe(expected);
        }
        expect(HarnessError.isInstance(error)).toBe(true);
        expect(error.name).toBe(made.Class.name);
      }
    });

    it("is not fooled by plain errors, look-alikes or a base error", () => {
      const base = new HarnessError({ code: "failed:store", message: "x" });
      for (const { Class } of family) expect(Class.isInstance(base)).toBe(false);
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
      expect(error).toMatchObject({
        code: "conflict:entry",
        type: "conflict",
        details: { id: "a" },
      });
      expect(error.cause).toBe(cause);
      expect(error.name).toBe("HarnessConflictError");
      expect(new FrontmatterError("bad", 2)).toMatchObject({
        code: "validation:frontmatter",
        message: "line 2: bad",
        line: 2,
      });
    });
  });

  describe(`${name}: the one mapping to status and user text`, () => {
    it("gives every class a status", () => {
      const statuses = family.map(({ make }) => httpStatusOf(make()));
      expect(statuses).toEqual(options.statuses);
      expect(httpStatusOf(new Error("x"))).toBe(500);
    });

    it("shows family messages, zod issues, and hides everything else", () => {
      const logged: unknown[] = [];
      const log = (error: unknown) => logged.push(error);
      expect(toPublicError(new HarnessNotFoundError({ message: "gone" }), log)).toEqual({
        status: 404,
        code: "not_found:harness",
        message: "gone",
      });
      const zodError = z.object({ title: z.string() }).safeParse({}).error;
      expect(toPublicError(zodError, log)).toMatchObject({ status: 400, code: "validation:input" });
      expect(toPublicError(zodError, log).message).toContain("title");
      expect(toPublicError(new Error("secret table name"), log)).toEqual({
        status: 500,
        code: "failed:internal",
        message: "Something went wrong. Try again.",
      });
      expect(toPublicError(options.failed, log)).toMatchObject({
        status: 500,
        message: options.failed.message,
      });
      expect(logged).toHaveLength(2);
    });

    it("records any error as JSON, with a fallback code for foreign ones", () => {
      expect(toErrorInfo(new HarnessConflictError({ message: "m", details: { at: 1n } }))).toEqual({
        code: "conflict:harness",
        message: "m",
        details: {},
      });
      expect(toErrorInfo(new Error("boom"), "refine:error")).toEqual({
        code: "refine:error",
        message: "boom",
      });
      expect(describeError("down")).toEqual({ code: "failed:store", message: "down" });
    });
  });
}
