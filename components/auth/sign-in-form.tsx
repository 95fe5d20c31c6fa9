"use client";

import { useActionState } from "react";
import { signInAction } from "@/app/(auth)/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { FormField } from "./form-field";
import { errorOf } from "@/lib/actions/result";

export function SignInForm({ initialError }: { initialError?: string }) {
  const [state, action, pending] = useActionState(signInAction, undefined);
  const error = errorOf(state);
  return (
    <form action={action} className="space-y-4" data-testid="sign-in-form">
      <FormField id="email" label="Email" error={error?.fieldErrors?.email?.[0]}>
        <Input id="email" name="email" type="email" autoComplete="email" required />
      </FormField>
      <FormField id="password" label="Password" error={error?.fieldErrors?.password?.[0]}>
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
      </FormField>
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
