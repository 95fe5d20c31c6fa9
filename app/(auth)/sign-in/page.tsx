import Link from "next/link";
import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { Button } from "@/components/ui/button";
import { Card, CardDescription } from "@/components/ui/card";
import { countUsers } from "@/lib/accounts/queries";
import { getActor, githubEnabled, signIn, signInMessage } from "@/lib/auth";
import { safeReturnPath } from "@/lib/auth/return-path";

export const dynamic = "force-dynamic";

export const metadata = { title: "Sign in" };

const errorMessages: Record<string, string> = {
  no_account: "No Cairn account uses that GitHub email. Ask an admin for an invite.",
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
  const empty = (await countUsers()) === 0;
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
      {githubEnabled ? (
        <form
          action={async () => {
            "use server";
            await signIn("github", { redirectTo: "/chat" });
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
