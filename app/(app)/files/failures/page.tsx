import Link from "next/link";
import { FailureList } from "@/components/files/failure-list";
import { PageHeader } from "@/components/page-header";
import { requireActor } from "@/lib/auth";
import { getPersistentDirs } from "@/lib/workspace-dirs";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { cn } from "@/lib/utils";

export const metadata = { title: "Commit failures" };

export const dynamic = "force-dynamic";

type SearchParams = Promise<RawSearchParams>;

export default async function CommitFailuresPage({ searchParams }: { searchParams: SearchParams }) {
  const actor = await requireActor();
  const params: { status?: string; cursor?: string } = firstSearchValues(await searchParams);
  const status = params.status === "resolved" ? "resolved" : "open";
  let page;
  try {
    page = await getPersistentDirs().listFailures({
      actor,
      status,
      cursor: params.cursor,
      limit: 20,
    });
  } catch {
    page = await getPersistentDirs().listFailures({ actor, status, limit: 20 });
  }
  const retrying = status === "open" ? await getPersistentDirs().countRetrying({ actor }) : 0;
  return (
    <div className="space-y-6">
      <PageHeader title="Commit failures" back={{ href: "/files", label: "Files" }}>
        Commits that failed or conflicted, and the changes of turns that were interrupted, are kept
        here with every change, so nothing is lost. Retry one to apply it again on top of the
        current files (text both sides changed is merged), apply or discard an interrupted
        turn&apos;s changes, or settle a conflict by picking a side or editing the merge. You see
        your own memory&apos;s commits and your workspace&apos;s; editors and admins act on company
        knowledge.
      </PageHeader>
      <nav className="flex gap-2 text-sm" aria-label="Status">
        {(["open", "resolved"] as const).map((option) => (
          <Link
            key={option}
            href={`/files/failures${option === "open" ? "" : "?status=resolved"}`}
            data-testid={`failures-tab-${option}`}
            className={cn(
              "hover:bg-muted rounded-md px-3 py-1.5",
              option === status && "bg-muted font-medium",
            )}
          >
            {option === "open" ? "Open" : "Resolved"}
          </Link>
        ))}
      </nav>
      <FailureList failures={page.failures} status={status} retrying={retrying} />
      {page.nextCursor ? (
        <Link
          className="text-sm underline"
          href={`/files/failures?${new URLSearchParams({ ...(status === "resolved" ? { status } : {}), cursor: page.nextCursor }).toString()}`}
        >
          Older
        </Link>
      ) : null}
    </div>
  );
}
