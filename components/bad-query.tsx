import Link from "next/link";

/** What a page shows for a mangled query string: what is wrong, and a link to the plain page. */
export function BadQuery({ message, resetHref }: { message: string; resetHref: string }) {
  return (
    <div
      className="border-destructive/50 space-y-2 rounded-lg border p-4 text-sm"
      data-testid="bad-query"
    >
      <p className="font-medium">Bad request</p>
      <p>{message}</p>
      <Link className="underline" href={resetHref}>
        Open the page without these parameters
      </Link>
    </div>
  );
}
