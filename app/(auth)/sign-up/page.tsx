import Link from "next/link";
import { SignUpForm } from "@/components/auth/sign-up-form";
import { Card, CardDescription, CardTitle } from "@/components/ui/card";
import { AccountError } from "@/lib/accounts";
import { countUsers, findInviteForSignUp } from "@/lib/accounts/queries";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";

export const dynamic = "force-dynamic";

export default async function SignUpPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const { invite: token } = firstSearchValues(await searchParams);
  if (token) {
    const invite = await findInviteForSignUp(token).catch((error: unknown) => {
      if (AccountError.isInstance(error)) return error;
      throw error;
    });
    if (AccountError.isInstance(invite)) return <Closed message={invite.message} />;
    return (
      <Card className="space-y-4">
        <CardTitle>Join {invite.workspace.name}</CardTitle>
        <CardDescription>You were invited as {invite.role}.</CardDescription>
        <SignUpForm token={token} />
      </Card>
    );
  }
  if ((await countUsers()) > 0) {
    return <Closed message="Sign-up needs an invite link from an admin of your workspace." />;
  }
  return (
    <Card className="space-y-4">
      <CardTitle>Create the first account</CardTitle>
      <CardDescription>You will be the admin of a new workspace.</CardDescription>
      <SignUpForm />
    </Card>
  );
}

function Closed({ message }: { message: string }) {
  return (
    <Card className="space-y-4" data-testid="sign-up-closed">
      <CardTitle>Sign-up</CardTitle>
      <CardDescription>{message}</CardDescription>
      <Link className="text-sm underline" href="/sign-in">
        Go to sign-in
      </Link>
    </Card>
  );
}
