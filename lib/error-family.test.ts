import { describe, expect, it } from "vitest";
import { AccessTokenError } from "@/lib/access-tokens/access-tokens";
import { AccountError } from "@/lib/accounts/accounts";
import { InjectedFaultError } from "@/lib/workspace-dirs/fault-injection";
import { UsageError } from "@/cli/usage-error";
import { ModelUnavailableError, RequestError } from "@/lib/request-error";
import {
  coreErrorFamily,
  coreErrorStatuses,
  runErrorFamilyConformance,
} from "@/lib/harness/testing";
import { httpStatusOf, registerErrorType } from "@/lib/harness";

/** The core's classes and the ones the app's modules add to the family. */
runErrorFamilyConformance("the error family, across the modules that join it", {
  family: [
    ...coreErrorFamily,
    { Class: AccountError, make: () => new AccountError("email_taken", "x") },
    { Class: AccessTokenError, make: () => new AccessTokenError("revoked", "x") },
    { Class: InjectedFaultError, make: () => new InjectedFaultError("x") },
    { Class: UsageError, make: () => new UsageError("x") },
    { Class: RequestError, make: () => new RequestError("too_large", "x") },
    { Class: ModelUnavailableError, make: () => new ModelUnavailableError("x") },
  ],
  statuses: [...coreErrorStatuses, 409, 401, 500, 400, 413, 503],
  failed: new InjectedFaultError("injected"),
});

describe("the app's error classes", () => {
  it("keep a typed code, its type and reason", () => {
    expect(new AccountError("invite_used", "used")).toMatchObject({
      code: "account:invite_used",
      type: "account",
      reason: "invite_used",
    });
  });

  it("get their statuses from the app's registrations, not from a list in the core", () => {
    expect(httpStatusOf("account:sign_up_closed")).toBe(403);
    expect(httpStatusOf("account:invite_used")).toBe(410);
    expect(httpStatusOf("account:invalid_input")).toBe(400);
    expect(httpStatusOf("access_token:revoked")).toBe(401);
    expect(httpStatusOf("usage:cli")).toBe(400);
  });

  it("cannot be registered twice with other statuses", () => {
    expect(() => registerErrorType("access_token", { status: 403 })).toThrow(/registered already/);
    expect(() => registerErrorType("access_token", { status: 401 })).not.toThrow();
  });
});
