// Test-only helpers for route tests that sign a person in without Auth.js's cookie crypto. Imports
// nothing of `@/lib/auth` at runtime, so `vi.mock` factories can load it.

/** Who a test's mocked session is for: set `current` to sign a person in, `null` for nobody. */
export interface TestSignIn {
  current: { userId: string; workspaceId: string } | null;
}

/**
 * A mock `next/headers` whose request carries a session cookie of its own per signed-in person
 * (the session claims are cached by the cookie). For
 * `vi.mock("next/headers", async () => (await import("@/lib/auth/testing")).sessionCookieHeaders(signIn))`,
 * with `signIn` made by `vi.hoisted`.
 */
export function sessionCookieHeaders(signIn: TestSignIn) {
  return {
    headers: async () =>
      new Headers({ cookie: `authjs.session-token=test-${signIn.current?.userId ?? "none"}` }),
  };
}

/**
 * A mock `@/lib/auth/auth` whose `auth()` answers as Auth.js would for the decoded cookie of
 * `signIn.current`: a session at version 0, valid for an hour (`null` when nobody is signed in).
 * `getActor` still reads the membership from the database, as on every request. Used as
 * `chatModelOnly` (`@/lib/ai/testing`) is.
 */
export function authSignedInAs<T extends object>(original: T, signIn: TestSignIn): T {
  return {
    ...original,
    auth: async () =>
      signIn.current && {
        user: { id: signIn.current.userId },
        workspaceId: signIn.current.workspaceId,
        sessionVersion: 0,
        tokenExpiresAt: Date.now() + 3_600_000,
        expires: new Date(Date.now() + 3_600_000).toISOString(),
      },
  };
}
