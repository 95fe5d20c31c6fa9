import Link from "next/link";

export default function Forbidden() {
  return (
    <main className="mx-auto max-w-md p-10 text-center" data-testid="forbidden">
      <h1 className="text-2xl font-semibold">403 — Forbidden</h1>
      <p className="text-muted-foreground mt-2">
        Your role in this workspace does not allow this page.
      </p>
      <Link className="mt-4 inline-block underline" href="/chat">
        Back to chat
      </Link>
    </main>
  );
}
