import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { Button } from "@/components/ui/button";
import { Card, CardDescription } from "@/components/ui/card";
import { countUsers } from "@/lib/accounts/queries";
import {
  getActor,
  githubEnabled,
  OIDC_PROVIDER_ID,
  oidcSignInButton,
  signIn,
  signInMessage,
} from "@/lib/auth";
import { safeReturnPath } from "@/lib/auth/return-path";

export const dynamic = "force-dynamic";

export const metadata = { title: "Sign in" };

const errorMessages: Record<string, string> = {
  no_account: "No Cairn account uses that GitHub email. Ask an admin for an invite.",
  oidc_no_account:
    "No Cairn account uses that email, and its domain does not join automatically. Ask an admin for an invite.",
  oidc_unverified_email:
    "Your identity provider did not confirm that email address, so Cairn cannot match it to an account.",
  oidc_no_workspace:
    "Single sign-on is set to add you to a workspace that does not exist. Tell your administrator (CAIRN_OIDC_WORKSPACE).",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{
    error?: string | string[];
    code?: string | string[];
    callbackUrl?: string | string[];
  }>;
}) {
  const params = await searchParams;
  const returnTo = safeReturnPath(
    typeof params.callbackUrl === "string" ? params.callbackUrl : undefined,
  );
  if (await getActor()) redirect(returnTo);
  const error = typeof params.error === "string" ? params.error : undefined;
  const code = typeof params.code === "string" ? params.code : undefined;
  const [users, oidcSignIn] = await Promise.all([countUsers(), oidcSignInButton()]);
  const empty = users === 0;
  const passwordForm = (
    <SignInForm
      callbackUrl={returnTo === "/chat" ? undefined : returnTo}
      initialError={
        error === "CredentialsSignin"
          ? signInMessage(code)
          : error
            ? (errorMessages[error] ?? "Sign-in failed.")
            : undefined
      }
    />
  );
  return (
    <Card className="space-y-4">
      <h1 className="text-lg font-semibold">Sign in</h1>
      {empty ? (
        <CardDescription>
          No accounts yet.{" "}
          <Link className="underline" href="/sign-up" data-testid="first-sign-up-link">
            Create the first account
          </Link>{" "}
          — it becomes the workspace admin.
        </CardDescription>
      ) : null}
      {oidcSignIn ? (
        <form
          action={async () => {
            "use server";
            await signIn(OIDC_PROVIDER_ID, { redirectTo: returnTo });
          }}
        >
          <Button className="w-full" type="submit" data-testid="oidc-sign-in">
            Sign in with {oidcSignIn.name}
          </Button>
        </form>
      ) : null}
      {oidcSignIn?.only ? (
        <details className="text-sm" open={error !== undefined}>
          <summary className="text-muted-foreground cursor-pointer">
            Administrator sign-in with password
          </summary>
          <div className="pt-3">{passwordForm}</div>
        </details>
      ) : (
        passwordForm
      )}
      {githubEnabled ? (
        <form
          action={async () => {
            "use server";
            await signIn("github", { redirectTo: returnTo });
          }}
        >
          <Button variant="outline" className="w-full" type="submit">
            Sign in with GitHub
          </Button>
        </form>
      ) : null}
    </Card>
  );
}
