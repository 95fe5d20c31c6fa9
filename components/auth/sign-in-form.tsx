"use client";

import { useActionState } from "react";
import { signInAction } from "@/app/(auth)/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { errorOf } from "@/lib/actions/result";

export function SignInForm({ initialError }: { initialError?: string }) {
  const [state, action, pending] = useActionState(signInAction, undefined);
  const error = errorOf(state);
  return (
    <form action={action} className="space-y-4" data-testid="sign-in-form">
      <div className="space-y-2">
        <Label htmlFor="email">Email</Label>
        <Input id="email" name="email" type="email" autoComplete="email" required />
        <FormMessage message={error?.fieldErrors?.email?.[0]} />
      </div>
      <div className="space-y-2">
        <Label htmlFor="password">Password</Label>
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
        />
        <FormMessage message={error?.fieldErrors?.password?.[0]} />
      </div>
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
