import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";

// Runs last (the file name sorts after every other spec; one worker): by then the server has
// served every browser test of the run, and everything it printed is in data/e2e-server.log
// (scripts/e2e-server.mjs). No secret the run used may be in it.

const SECRETS = {
  "the metrics token": "e2e-metrics-token-0123456789",
  "the model API key": "e2e-not-a-secret",
  AUTH_SECRET: "e2e-secret-not-for-production-use-0123456789",
  "the OIDC client secret": "cairn-e2e-oidc-client-secret",
  "the issuer password": "issuer-any-password",
};

/**
 * Every password the browser specs sign up or sign in with (`password: "…"` in their sources and
 * in the fixtures of e2e/support, where the first admin's and every team's are).
 */
function specPasswords(): string[] {
  const found = new Set<string>();
  for (const [folder, suffix] of [
    ["e2e", ".spec.ts"],
    ["e2e/support", ".ts"],
  ] as const) {
    const directory = path.join(process.cwd(), folder);
    for (const file of readdirSync(directory).filter((name) => name.endsWith(suffix))) {
      const text = readFileSync(path.join(directory, file), "utf8");
      for (const match of text.matchAll(/password: "([^"]{6,})"/g)) found.add(match[1]!);
    }
  }
  return [...found];
}

test("the server's output of the whole run holds no token, password or API key", () => {
  const log = readFileSync(path.join(process.cwd(), "data", "e2e-server.log"), "utf8");
  // The run did log: JSON lines with request and turn ids.
  expect(log).toContain('"msg":"server started"');
  expect(log).toMatch(/"turnId":"[0-9a-f-]{36}"/);
  for (const [what, secret] of Object.entries(SECRETS)) {
    expect(log.includes(secret), `${what} is in the server's output`).toBe(false);
  }
  const passwords = specPasswords();
  expect(passwords.length).toBeGreaterThan(5);
  for (const password of passwords) {
    expect(log.includes(password), `a test password (${password}) is in the server's output`).toBe(
      false,
    );
  }
  // Personal access tokens (e2e/tokens.spec.ts makes some) never appear either.
  expect(log).not.toMatch(/cairn_pat_[A-Za-z0-9_-]{8,}/);
});
