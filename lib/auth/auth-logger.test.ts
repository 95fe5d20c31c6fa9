import { CredentialsSignin } from "next-auth";
import { afterEach, describe, expect, it } from "vitest";
import { installTestCairn, recordingLogger } from "@/lib/cairn/testing";
import { authLogger } from "./auth-logger";

describe("authLogger", () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  it("logs nothing for a refused sign-in, and logs any other error through the app's logger", () => {
    const logger = recordingLogger();
    ({ cleanup } = installTestCairn({ logger }));
    class WrongPassword extends CredentialsSignin {
      code = "invalid_credentials";
    }
    authLogger.error!(new WrongPassword());
    authLogger.error!(new CredentialsSignin());
    expect(logger.lines).toEqual([]);
    const broken = new Error("the adapter failed");
    authLogger.error!(broken);
    expect(logger.lines).toEqual([
      { level: "error", message: "sign-in error", fields: { err: broken, source: "auth.js" } },
    ]);
  });
});
