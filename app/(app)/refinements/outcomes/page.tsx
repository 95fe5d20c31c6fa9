import Link from "next/link";
import { z } from "zod";
import { EmptyState } from "@/components/empty-state";
import { describeShare, percent } from "@/components/feedback/share-text";
import {
  OutcomeTimelineChart,
  type TimelineMarker,
  type TimelinePoint,
} from "@/components/feedback/outcome-timeline-chart";
import { PageHeader } from "@/components/page-header";
import { TRIGGER_LABELS } from "@/components/refinements/refinement-labels";
import { Button } from "@/components/ui/button";
import { FilterSelect, SCOPE_OPTIONS } from "@/components/ui/filter-select";
import { TableHead } from "@/components/ui/table-head";
import { requireActor } from "@/lib/auth";
import { getOwnChat, listChats } from "@/lib/chat/queries";
import { outcomeOverview } from "@/lib/feedback";
import type { RefinementTrigger } from "@/lib/harness";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";

export const dynamic = "force-dynamic";

const PICKER_CHATS = 100;

const filtersSchema = z.object({
  scope: z.enum(["local", "global"]).optional().catch(undefined),
  chat: z.string().max(100).optional().catch(undefined),
});

/**
 * Success rate over time: the share of rated answers rated good per harness-version range (the
 * answers produced between two refinements), with 95% Wilson intervals and the refinements
 * marked. Workspace-wide it counts everyone's ratings (numbers only); a chat is one of the
 * person's own.
 */
export default async function OutcomesPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const filters = filtersSchema.parse(firstSearchValues(await searchParams));
  const [recent, chosen] = await Promise.all([
    listChats(actor, { limit: PICKER_CHATS }),
    filters.chat ? getOwnChat(actor, filters.chat) : null,
  ]);
  const chats =
    chosen && !recent.items.some((chat) => chat.id === chosen.id)
      ? [...recent.items, chosen]
      : recent.items;
  const overview = await outcomeOverview({
    workspaceId: actor.workspaceId,
    scope: chosen ? { kind: "chat", chatId: chosen.id } : { kind: "workspace" },
    viewerId: actor.userId,
  });
  const marked = overview.refinements.filter(
    (refinement) => !filters.scope || refinement.scope === filters.scope,
  );
  const rated = overview.ranges.filter((range) => range.total > 0);
  const points: TimelinePoint[] = rated.map((range) => ({
    at: Date.parse(range.firstTurnAt!),
    value: (range.share ?? 0) * 100,
    error: [
      ((range.share ?? 0) - (range.low ?? 0)) * 100,
      ((range.high ?? 0) - (range.share ?? 0)) * 100,
    ],
    total: range.total,
    versions: versionsOf(range.fromVersion, range.toVersion),
  }));
  const markers: TimelineMarker[] = marked.map((refinement) => ({
    at: Date.parse(refinement.createdAt),
    label: `v${refinement.harnessVersionAfter}`,
  }));
  const byId = new Map(overview.refinements.map((refinement) => [refinement.id, refinement]));

  return (
    <div className="space-y-6">
      <PageHeader title="Answer outcomes" back={{ href: "/refinements", label: "Refinements" }}>
        How answers were rated (thumbs up / down) between refinements: the share rated good per
        harness version range, with its 95% interval.{" "}
        {chosen ? `Chat “${chosen.title}”.` : "Everyone’s ratings in this workspace (counts only)."}
      </PageHeader>
      <form className="flex flex-wrap items-end gap-2" data-testid="outcome-filters">
        <FilterSelect
          name="chat"
          label="Chat"
          value={chosen?.id}
          any="Whole workspace"
          options={chats.map((chat) => [chat.id, chat.title])}
        />
        <FilterSelect
          name="scope"
          label="Refinements marked"
          value={filters.scope}
          any="Global and local"
          options={SCOPE_OPTIONS}
        />
        <Button type="submit" variant="outline">
          Show
        </Button>
      </form>
      {overview.total === 0 ? (
        <EmptyState title="No rated answers yet">
          Rate answers in a chat with the thumbs under each reply; the share rated good per harness
          version shows here.
        </EmptyState>
      ) : (
        <>
          <figure className="space-y-2">
            <OutcomeTimelineChart points={points} markers={markers} />
            <figcaption className="text-muted-foreground text-xs">
              Points: share rated good of the answers produced with each harness version range
              (bars: 95% Wilson interval). Dashed lines: refinements, labelled with the version they
              left.
            </figcaption>
          </figure>
          {marked.length > 0 ? (
            <div className="space-y-1 text-sm">
              <h2 className="font-medium">Refinements marked</h2>
              <ul className="text-muted-foreground flex flex-wrap gap-x-4 gap-y-1 text-xs">
                {marked.map((refinement) => (
                  <li key={refinement.id} data-testid="outcome-marker">
                    <Link className="underline" href={`/refinements/${refinement.id}`}>
                      v{refinement.harnessVersionAfter} ·{" "}
                      {TRIGGER_LABELS[refinement.trigger as RefinementTrigger] ??
                        refinement.trigger}{" "}
                      ({refinement.scope}) · {new Date(refinement.createdAt).toLocaleString()}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <table className="table-cards w-full text-sm" data-testid="outcome-ranges">
            <TableHead
              columns={["Harness versions", "Started by", "Rated", "Rated good", "95% interval"]}
            />
            <tbody>
              {overview.ranges.map((range) => {
                const opener = range.startedBy ? byId.get(range.startedBy) : undefined;
                return (
                  <tr
                    key={range.fromVersion}
                    className="border-border border-t"
                    data-testid="outcome-range"
                    aria-label={`Versions ${versionsOf(range.fromVersion, range.toVersion)}: ${describeShare(range)}`}
                  >
                    <td data-label="Harness versions" className="py-2 pr-2">
                      {versionsOf(range.fromVersion, range.toVersion)}
                    </td>
                    <td data-label="Started by" className="pr-2">
                      {opener ? (
                        <Link className="underline" href={`/refinements/${opener.id}`}>
                          {TRIGGER_LABELS[opener.trigger as RefinementTrigger] ?? opener.trigger} (
                          {opener.scope})
                        </Link>
                      ) : (
                        "—"
                      )}
                    </td>
                    <td data-label="Rated" className="pr-2">
                      {range.total}
                    </td>
                    <td data-label="Rated good" className="pr-2">
                      {percent(range.share)}
                    </td>
                    <td data-label="95% interval" className="pr-2">
                      {range.total ? `${percent(range.low)}–${percent(range.high)}` : "—"}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}

function versionsOf(from: number, to: number | null): string {
  return to === null ? `${from} and later` : to - 1 === from ? `${from}` : `${from}–${to - 1}`;
}
