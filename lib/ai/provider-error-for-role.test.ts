import { describe, expect, it } from "vitest";
import { providerErrorMessage } from "./provider-error-for-role";

describe("providerErrorMessage", () => {
  const description = {
    code: "unreachable" as const,
    message: "The model provider could not be reached. Check that AI_BASE_URL is right.",
    retryable: true,
  };
  it("gives admins the settings to check", () => {
    expect(providerErrorMessage(description, "admin")).toContain("AI_BASE_URL");
  });
  it("gives members plain words without environment variable names", () => {
    const message = providerErrorMessage(description, "member");
    expect(message).not.toMatch(/AI_[A-Z_]+/);
    expect(message).toMatch(/try again/i);
  });
});
