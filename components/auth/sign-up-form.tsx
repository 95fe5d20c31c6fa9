"use client";

import { useActionState } from "react";
import { signUpAction } from "@/app/(auth)/actions";
import { Button } from "@/components/ui/button";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { errorOf } from "@/lib/actions/result";

/** With `token`, redeems an invite; without, creates the first account and its workspace. */
export function SignUpForm({ token }: { token?: string }) {
  const [state, action, pending] = useActionState(signUpAction, undefined);
  const error = errorOf(state);
  const field = (name: string) => <FormMessage message={error?.fieldErrors?.[name]?.[0]} />;
  return (
    <form action={action} className="space-y-4" data-testid="sign-up-form">
      {token ? <input type="hidden" name="token" value={token} /> : null}
      <div className="space-y-2">
        <Label htmlFor="name">Name</Label>
        <Input id="name" name="name" autoComplete="name" required />
        {field("name")}
      </div>
      <div className="space-y-2">
        <Label htmlFor="email">Email</Label>
        <Input id="email" name="email" type="email" autoComplete="email" required />
        {field("email")}
      </div>
      <div className="space-y-2">
        <Label htmlFor="password">Password</Label>
        <Input
          id="password"
          name="password"
          type="password"
          autoComplete="new-password"
          minLength={8}
          required
        />
        {field("password")}
      </div>
      {token ? null : (
        <div className="space-y-2">
          <Label htmlFor="workspaceName">Workspace name</Label>
          <Input id="workspaceName" name="workspaceName" defaultValue="My workspace" required />
          {field("workspaceName")}
        </div>
      )}
      <FormMessage message={error?.fieldErrors ? undefined : error?.message} />
      <Button type="submit" className="w-full" disabled={pending}>
        {pending ? "Creating account…" : "Create account"}
      </Button>
    </form>
  );
}
