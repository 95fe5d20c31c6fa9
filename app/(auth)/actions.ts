"use server";

import { AuthError, type CredentialsSignin } from "next-auth";
import { redirect } from "next/navigation";
import { z } from "zod";
import {
  AccountError,
  emailSchema,
  nameSchema,
  passwordSchema,
  signUpFirstUser,
  signUpWithInvite,
  workspaceNameSchema,
} from "@/lib/accounts";
import { signIn, signOut } from "@/lib/auth";
import { getDb } from "@/lib/db";

export type FormState =
  { error?: string; fieldErrors?: Record<string, string[] | undefined> } | undefined;

const signInSchema = z.object({
  email: z.string().trim().min(1, "Enter your email"),
  password: z.string().min(1, "Enter your password"),
});

export async function signInAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const parsed = signInSchema.safeParse(Object.fromEntries(formData));
  if (!parsed.success) return { fieldErrors: z.flattenError(parsed.error).fieldErrors };
  try {
    await signIn("credentials", { ...parsed.data, redirectTo: "/chat" });
  } catch (error) {
    if (error instanceof AuthError) {
      if (
        error.type === "CredentialsSignin" &&
        (error as CredentialsSignin).code === "rate_limited"
      ) {
        return { error: "Too many failed sign-in attempts. Wait 15 minutes and try again." };
      }
      return { error: "Wrong email or password." };
    }
    throw error;
  }
}

const firstUserSchema = z.object({
  name: nameSchema,
  email: emailSchema,
  password: passwordSchema,
  workspaceName: workspaceNameSchema,
});

const inviteSignUpSchema = z.object({
  token: z.string().min(1),
  name: nameSchema,
  email: emailSchema,
  password: passwordSchema,
});

/** Sign-up: the first account on an empty database, or anyone holding a valid invite. */
export async function signUpAction(_previous: FormState, formData: FormData): Promise<FormState> {
  const raw = Object.fromEntries(formData);
  const db = getDb();
  let email: string;
  let password: string;
  try {
    if (raw.token) {
      const parsed = inviteSignUpSchema.safeParse(raw);
      if (!parsed.success) return { fieldErrors: z.flattenError(parsed.error).fieldErrors };
      await signUpWithInvite(db, parsed.data);
      ({ email, password } = parsed.data);
    } else {
      const parsed = firstUserSchema.safeParse(raw);
      if (!parsed.success) return { fieldErrors: z.flattenError(parsed.error).fieldErrors };
      await signUpFirstUser(db, parsed.data);
      ({ email, password } = parsed.data);
    }
  } catch (error) {
    if (error instanceof AccountError) return { error: error.message };
    throw error;
  }
  try {
    await signIn("credentials", { email, password, redirectTo: "/chat" });
  } catch (error) {
    if (error instanceof AuthError) redirect("/sign-in");
    throw error;
  }
}

export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}
