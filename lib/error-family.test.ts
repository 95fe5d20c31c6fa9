import { describe, expect, it } from "vitest";
import { AccessTokenError } from "@/lib/access-tokens/access-tokens";
import { AccountError } from "@/lib/accounts/accounts";
import { InjectedFaultError } from "@/lib/persistent-dirs/fault-injection";
import { UsageError } from "@/cli/usage-error";
import {
  coreErrorFamily,
  coreErrorStatuses,
  runErrorFamilyConformance,
} from "@/lib/harness/testing";

/** The core's classes and the ones the app's modules add to the family. */
runErrorFamilyConformance("the error family, across the modules that join it", {
  family: [
    ...coreErrorFamily,
    { Class: AccountError, make: () => new AccountError("email_taken", "x") },
    { Class: AccessTokenError, make: () => new AccessTokenError("revoked", "x") },
    { Class: InjectedFaultError, make: () => new InjectedFaultError("x") },
    { Class: UsageError, make: () => new UsageError("x") },
  ],
  statuses: [...coreErrorStatuses, 409, 401, 500, 400],
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
});
