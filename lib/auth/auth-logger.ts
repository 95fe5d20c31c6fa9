import { CredentialsSignin, type NextAuthConfig } from "next-auth";
import { cairn } from "@/lib/cairn";

/**
 * Auth.js's logger, but a refused sign-in (wrong password, rate limited, limiter unavailable —
 * which logs its own cause where it happens) is an answer to the person, not a server error:
 * Auth.js would print each one as `[auth][error]` with a stack trace.
 */
export const authLogger: NonNullable<NextAuthConfig["logger"]> = {
  error(error) {
    if (error instanceof CredentialsSignin) return;
    // Auth.js wraps what went wrong (an issuer's refusal, a database error) as the cause.
    const cause = (error as { cause?: unknown }).cause;
    cairn().logger.error(
      { err: error, ...(cause !== undefined && { cause }), source: "auth.js" },
      "sign-in error",
    );
  },
};
