"use client";

import { useActionState } from "react";
import { signUpAction } from "@/app/(auth)/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { FormField } from "./form-field";
import { errorOf } from "@/lib/actions/result";

/** With `token`, redeems an invite; without, creates the first account and its workspace. */
/** `email`: the address the invite was made for, filled in to start with. */
export function SignUpForm({ token, email }: { token?: string; email?: string }) {
  const [state, action, pending] = useActionState(signUpAction, undefined);
  const error = errorOf(state);
  const fieldError = (name: string) => error?.fieldErrors?.[name]?.[0];
  return (
    <form action={action} className="space-y-4" data-testid="sign-up-form">
      {token ? <input type="hidden" name="token" value={token} /> : null}
      <FormField id="name" label="Name" error={fieldError("name")} autoComplete="name" required />
      <FormField
        id="email"
        label="Email"
        error={fieldError("email")}
        type="email"
        autoComplete="email"
        required
        defaultValue={email}
      />
      <FormField
        id="password"
        label="Password"
        error={fieldError("password")}
        type="password"
        autoComplete="new-password"
        minLength={8}
        required
      />
      {token ? null : (
        <FormField
          id="workspaceName"
          label="Workspace name"
          error={fieldError("workspaceName")}
          defaultValue="My workspace"
          required
        />
      )}
      <FormMessage message={error?.fieldErrors ? undefined : error?.message} />
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Creating account…" : "Create account"}
      </Button>
    </form>
  );
}
