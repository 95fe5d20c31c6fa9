import { describe, expect, it } from "vitest";
import { HarnessError, httpStatusOf, registerErrorType } from ".";
import {
  coreErrorFamily,
  coreErrorStatuses,
  runErrorFamilyConformance,
} from "./error-family-conformance";

runErrorFamilyConformance("the core's error family", {
  family: coreErrorFamily,
  statuses: coreErrorStatuses,
  failed: new HarnessError({ code: "failed:store", message: "store down" }),
});

describe("kinds of failure a host registers", () => {
  it("an unregistered kind maps to 500; a core kind cannot be registered", () => {
    expect(httpStatusOf("nobody_registered:this")).toBe(500);
    expect(() =>
      registerErrorType("conflict" as unknown as Parameters<typeof registerErrorType>[0], {
        status: 400,
      }),
    ).toThrow(/core's error types/);
    expect(httpStatusOf("conflict:entry")).toBe(409);
  });
});
