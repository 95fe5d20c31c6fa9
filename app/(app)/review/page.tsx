import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { SuggestionCard, type SuggestionCardData } from "@/components/review/suggestion-card";
import { Card } from "@/components/ui/card";
import { requireActor } from "@/lib/auth";
import { dirSuggestionFiles, type SuggestionView } from "@/lib/review";
import { pendingRefinementsFor, suggestionsFor } from "@/lib/review/process-review";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { cn } from "@/lib/utils";

export const metadata = { title: "Review" };

export const dynamic = "force-dynamic";

function cardData(suggestion: SuggestionView, viewerId: string): SuggestionCardData {
  const entry = suggestion.entry;
  const files = suggestion.dir
    ? dirSuggestionFiles(suggestion.dir)
    : entry
      ? [
          {
            path: `${entry.kind}/${entry.id ?? "(new)"}`,
            before: entry.base?.content ?? null,
            after:
              entry.action === "delete"
                ? null
                : (entry.fields.content ?? entry.base?.content ?? ""),
            binary: false,
          },
        ]
      : [];
  return {
    id: suggestion.id,
    target: suggestion.target,
    title: suggestion.title,
    note: suggestion.note,
    source: suggestion.source,
    status: suggestion.status,
    authorName: suggestion.authorName ?? "a former member",
    createdAt: suggestion.createdAt.toISOString(),
    decidedByName: suggestion.decidedByName,
    decidedAt: suggestion.decidedAt?.toISOString() ?? null,
    decisionNote: suggestion.decisionNote,
    chatHref:
      suggestion.chatId && suggestion.authorId === viewerId ? `/chat/${suggestion.chatId}` : null,
    files,
    entryTitle: entry
      ? {
          before: entry.base?.title ?? null,
          after: entry.fields.title ?? entry.base?.title ?? null,
        }
      : null,
  };
}

export default async function ReviewPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const params: { status?: string } = firstSearchValues(await searchParams);
  const status = params.status === "decided" ? "decided" : "open";
  const canReview = actor.role !== "member";
  const [suggestions, refinements] = await Promise.all([
    suggestionsFor(actor, status),
    status === "open" ? pendingRefinementsFor(actor) : Promise.resolve([]),
  ]);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Review</h1>
        <p className="text-muted-foreground text-sm">
          {canReview
            ? "Changes to company knowledge and global harness entries suggested by members (or their agents), and global refinements waiting for approval. Approving applies a change as you, recorded as suggested by its author and approved by you; a change that clashes with a newer version is shown to merge or send back. Rejecting needs a reason: its author reads it here."
            : "Your suggestions: changes to company knowledge and global harness entries that you (or your agent) proposed. Editors and admins approve or reject them; a rejection says why."}
        </p>
      </div>
      <nav className="flex gap-2 text-sm" aria-label="Status">
        {(["open", "decided"] as const).map((option) => (
          <Link
            key={option}
            href={`/review${option === "open" ? "" : "?status=decided"}`}
            data-testid={`review-tab-${option}`}
            className={cn(
              "hover:bg-muted rounded-md px-3 py-1.5",
              option === status && "bg-muted font-medium",
            )}
          >
            {option === "open" ? "Open" : "Decided"}
          </Link>
        ))}
      </nav>
      {refinements.length > 0 ? (
        <section className="space-y-2" aria-labelledby="pending-refinements">
          <h2 id="pending-refinements" className="text-lg font-semibold">
            Refinements waiting for approval
          </h2>
          <ul className="space-y-2">
            {refinements.map((refinement) => (
              <li key={refinement.id}>
                <Card
                  className="flex flex-wrap items-center justify-between gap-2 p-3"
                  data-testid="pending-refinement"
                >
                  <span className="min-w-0 text-sm">
                    {refinement.summary || "A global refinement"}{" "}
                    <span className="text-muted-foreground text-xs">
                      · {refinement.editCount} edit{refinement.editCount === 1 ? "" : "s"} ·{" "}
                      {refinement.trigger}
                    </span>
                  </span>
                  <Link className="text-sm underline" href={`/refinements/${refinement.id}`}>
                    Review refinement
                  </Link>
                </Card>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {suggestions.length === 0 ? (
        <EmptyState title={status === "open" ? "Nothing to review" : "No decided suggestions yet"}>
          {canReview
            ? "When a member's agent changes company knowledge or a global entry, the change waits here."
            : "When your agent proposes a change to company knowledge, it waits here for an editor."}
        </EmptyState>
      ) : (
        <ul className="space-y-4" data-testid="suggestion-list">
          {suggestions.map((suggestion) => (
            <li key={suggestion.id}>
              <SuggestionCard
                suggestion={cardData(suggestion, actor.userId)}
                canReview={canReview}
              />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
