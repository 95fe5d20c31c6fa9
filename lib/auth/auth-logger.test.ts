import { CredentialsSignin } from "next-auth";
import { afterEach, describe, expect, it, vi } from "vitest";
import { authLogger } from "./auth-logger";

describe("authLogger", () => {
  afterEach(() => vi.restoreAllMocks());

  it("prints nothing for a refused sign-in, and prints any other error", () => {
    const printed = vi.spyOn(console, "error").mockImplementation(() => undefined);
    class WrongPassword extends CredentialsSignin {
      code = "invalid_credentials";
    }
    authLogger.error!(new WrongPassword());
    authLogger.error!(new CredentialsSignin());
    expect(printed).not.toHaveBeenCalled();
    const broken = new Error("the adapter failed");
    authLogger.error!(broken);
    expect(printed).toHaveBeenCalledWith("[auth][error]", broken);
  });
});
