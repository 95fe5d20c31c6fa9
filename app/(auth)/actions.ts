"use server";

import { AuthError, type CredentialsSignin } from "next-auth";
import { redirect } from "next/navigation";
import { z } from "zod";
import {
  AccountError,
  emailSchema,
  nameSchema,
  passwordSchema,
  workspaceNameSchema,
} from "@/lib/accounts";
import { signUpFirstAccount, signUpInvited } from "@/lib/accounts/queries";
import { fail, formAction, publicAction } from "@/lib/actions";
import { signIn, signInMessage, signOut } from "@/lib/auth";

const signInSchema = z.object({
  email: z.string().trim().min(1, "Enter your email"),
  password: z.string().min(1, "Enter your password"),
});

/** Sign-in with email and password; a refusal reads as one of the sign-in messages. */
export const signInAction = formAction(
  publicAction({ input: signInSchema }, async ({ input }) => {
    try {
      await signIn("credentials", { ...input, redirectTo: "/chat" });
    } catch (error) {
      if (error instanceof AuthError) {
        const code =
          error.type === "CredentialsSignin" ? (error as CredentialsSignin).code : "try_later";
        fail(`sign_in:${code}`, signInMessage(code));
      }
      throw error;
    }
  }),
);

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

/**
 * Sign-up: the first account on an empty database, or anyone holding a valid invite. Which of
 * the two the form is decides the schema, so the fields are parsed in the body (the wrapper maps
 * a refusal to the same messages per field).
 */
export const signUpAction = formAction(
  publicAction({ input: z.looseObject({ token: z.string().optional() }) }, async ({ input }) => {
    let email: string;
    let password: string;
    try {
      if (input.token) {
        const data = inviteSignUpSchema.parse(input);
        await signUpInvited(data);
        ({ email, password } = data);
      } else {
        const data = firstUserSchema.parse(input);
        await signUpFirstAccount(data);
        ({ email, password } = data);
      }
    } catch (error) {
      // With an invite, every refusal reads the same: "this email already has an account" would
      // tell an invite holder which emails exist (the timing is the same too: the password is
      // hashed before the email is tried).
      if (input.token && AccountError.isInstance(error))
        fail("account:invite_sign_up", INVITE_SIGN_UP_FAILED);
      throw error;
    }
    try {
      await signIn("credentials", { email, password, redirectTo: "/chat" });
    } catch (error) {
      if (error instanceof AuthError) redirect("/sign-in");
      throw error;
    }
  }),
);

/** The header's sign-out form: a redirect-only post with no input and no result. */
export async function signOutAction(): Promise<void> {
  await signOut({ redirectTo: "/sign-in" });
}
