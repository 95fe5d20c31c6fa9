/**
 * What the sign-in page says for each refusal code (the `code` of Auth.js's `CredentialsSignin`,
 * also passed as `?code=` when a form posts to /api/auth/callback/credentials directly).
 */
export const SIGN_IN_MESSAGES = {
  invalid_credentials: "Wrong email or password.",
  rate_limited:
    "Too many sign-in attempts for this account or from this network. Wait a few minutes (at most 15) and try again.",
  try_later: "Sign-in is busy right now and your password was not checked. Try again shortly.",
  oidc_only:
    "Password sign-in is turned off for this workspace: use the single sign-on button above.",
} as const;

export type SignInRefusal = keyof typeof SIGN_IN_MESSAGES;

/** The message for a refusal code; unknown codes read as a wrong email or password. */
export function signInMessage(code: string | undefined | null): string {
  return code && Object.hasOwn(SIGN_IN_MESSAGES, code)
    ? SIGN_IN_MESSAGES[code as SignInRefusal]
    : SIGN_IN_MESSAGES.invalid_credentials;
}
