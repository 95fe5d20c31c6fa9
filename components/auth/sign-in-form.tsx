"use client";

import { useActionState, useState } from "react";
import { signInAction } from "@/app/(auth)/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { FormField } from "./form-field";
import { errorOf } from "@/lib/actions/result";

/**
 * Email and password. The email is kept after a refused attempt (a form action resets the
 * form's own fields); `callbackUrl` is the page asked for before sign-in, returned to after.
 */
export function SignInForm({
  initialError,
  callbackUrl,
}: {
  initialError?: string;
  callbackUrl?: string;
}) {
  const [state, action, pending] = useActionState(signInAction, undefined);
  const [email, setEmail] = useState("");
  const error = errorOf(state);
  return (
    <form action={action} className="space-y-4" data-testid="sign-in-form">
      {callbackUrl ? <input type="hidden" name="callbackUrl" value={callbackUrl} /> : null}
      <FormField
        id="email"
        label="Email"
        error={error?.fieldErrors?.email?.[0]}
        type="email"
        autoComplete="email"
        required
        autoFocus
        value={email}
        onChange={(event) => setEmail(event.target.value)}
      />
      <FormField
        id="password"
        label="Password"
        error={error?.fieldErrors?.password?.[0]}
        type="password"
        autoComplete="current-password"
        required
      />
      <FormMessage
        message={
          error ? (error.fieldErrors ? undefined : error.message) : state ? undefined : initialError
        }
      />
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Signing in…" : "Sign in"}
      </Button>
    </form>
  );
}
