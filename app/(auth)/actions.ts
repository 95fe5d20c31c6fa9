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
import { signIn, signInMessage, signOut } from "@/lib/auth";
import { getDb } from "@/lib/db";

export type FormState =
  { error?: string; code?: string; fieldErrors?: Record<string, string[] | undefined> } | undefined;

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
      const code =
        error.type === "CredentialsSignin" ? (error as CredentialsSignin).code : "try_later";
      return { error: signInMessage(code), code };
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

/** The one answer to a refused invite sign-up, whatever the reason. */
const INVITE_SIGN_UP_FAILED =
  "Sign-up with this invite did not work. Check the link and your details, ask the admin who invited you for a new link, or sign in if you already have an account.";

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
    if (error instanceof AccountError) {
      // With an invite, every refusal reads the same: "this email already has an account" would
      // tell an invite holder which emails exist (the timing is the same too: the password is
      // hashed before the email is tried).
      return { error: raw.token ? INVITE_SIGN_UP_FAILED : error.message };
    }
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
