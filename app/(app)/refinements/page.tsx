import Link from "next/link";
import { z } from "zod";
import { EmptyState } from "@/components/empty-state";
import { RefinementOutcome } from "@/components/feedback/refinement-outcome";
import { RollbackControl } from "@/components/refinements/rollback-control";
import { editCounts } from "@/components/refinements/edit-counts";
import { STATUS_LABELS, TRIGGER_LABELS } from "@/components/refinements/refinement-labels";
import { StatusBadge } from "@/components/refinements/status-badge";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FilterSelect, SCOPE_OPTIONS, memberOptions } from "@/components/ui/filter-select";
import { TableHead } from "@/components/ui/table-head";
import { listWorkspaceMembers } from "@/lib/accounts/queries";
import { isRollbackable, mayWriteRefinementScope, requireActor } from "@/lib/auth";
import { getSql } from "@/lib/sql-storage/sql";
import { countAnsweredFeedback, getAutoVerdicts, refinementOutcomes } from "@/lib/feedback";
import { getWorkspaceSettings } from "@/lib/workspace-settings";
import { decodeRefinementCursor, REFINEMENT_STATUSES, REFINEMENT_TRIGGERS } from "@/lib/harness";
import { getOwnChat, listChats, ownChatTitles } from "@/lib/chat/queries";
import { findRollbacksOf, listVisibleRefinements } from "@/lib/refinement-runs/queries";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { queryOf } from "@/lib/utils";

export const metadata = { title: "Refinements" };

export const dynamic = "force-dynamic";

const PAGE_SIZE = 50;
/** The Chat filter lists this many of the person's most recent chats (and the chosen one). */
const PICKER_CHATS = 100;

const filtersSchema = z.object({
  scope: z.enum(["local", "global"]).optional().catch(undefined),
  trigger: z.enum(REFINEMENT_TRIGGERS).optional().catch(undefined),
  status: z.enum(REFINEMENT_STATUSES).optional().catch(undefined),
  chat: z.string().max(100).optional().catch(undefined),
  who: z.string().max(100).optional().catch(undefined),
  cursor: z.string().max(500).optional().catch(undefined),
});

/** A cursor from the URL, or undefined when it is missing or unreadable (then: first page). */
function readableCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  try {
    decodeRefinementCursor(cursor);
    return cursor;
  } catch {
    return undefined;
  }
}

export default async function RefinementsPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const filters = filtersSchema.parse(firstSearchValues(await searchParams));
  const [recent, chosen, memberships] = await Promise.all([
    listChats(actor, { limit: PICKER_CHATS }),
    filters.chat ? getOwnChat(actor, filters.chat) : null,
    listWorkspaceMembers(actor.workspaceId),
  ]);
  // The picker lists the most recent chats, and the chosen one when it is older.
  const chats =
    chosen && !recent.items.some((chat) => chat.id === chosen.id)
      ? [...recent.items, chosen]
      : recent.items;
  const names = new Map(memberships.map((m) => [m.userId, m.user.name || m.user.email]));
  const chatId = chosen?.id;
  const page = await listVisibleRefinements({
    actor,
    filters: {
      scope: filters.scope,
      trigger: filters.trigger,
      status: filters.status,
      chatId,
      actorId: filters.who || undefined,
      cursor: readableCursor(filters.cursor),
    },
    limit: PAGE_SIZE,
  });
  const measured = page.items.filter(
    (refinement) =>
      isRollbackable(refinement) &&
      refinement.trigger !== "rollback" &&
      refinement.trigger !== "restore",
  );
  const [rollbacks, chatTitles, outcomes, verdicts, settings, answered] = await Promise.all([
    findRollbacksOf({ actor, ids: page.items.map((refinement) => refinement.id) }),
    ownChatTitles(
      actor,
      page.items.flatMap((refinement) => (refinement.chatId ? [refinement.chatId] : [])),
    ),
    refinementOutcomes({ workspaceId: actor.workspaceId, refinements: measured }),
    getAutoVerdicts(measured.map((refinement) => refinement.id)),
    getWorkspaceSettings(getSql(), actor.workspaceId),
    countAnsweredFeedback(
      page.items.filter((item) => item.trigger === "feedback").map((item) => item.id),
    ),
  ]);
  const nextQuery = queryOf({ ...filters, chat: chatId, cursor: page.nextCursor });

  return (
    <div className="space-y-6">
      <div>
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          <h1 className="text-2xl font-semibold">Refinements</h1>
          <Link
            className="text-sm underline"
            href="/refinements/outcomes"
            data-testid="outcomes-link"
          >
            Answer outcomes
          </Link>
        </div>
        <p className="text-muted-foreground text-sm">
          Every change the harness made to itself, with its rationale and diffs. Global refinements
          of the workspace and local ones of your chats; each can be rolled back.
        </p>
      </div>
      <form className="flex flex-wrap items-end gap-2" data-testid="refinement-filters">
        <FilterSelect
          name="scope"
          label="Scope"
          value={filters.scope}
          any="Both scopes"
          options={SCOPE_OPTIONS}
        />
        <FilterSelect
          name="trigger"
          label="Trigger"
          value={filters.trigger}
          any="All triggers"
          options={REFINEMENT_TRIGGERS.map((trigger) => [trigger, TRIGGER_LABELS[trigger]])}
        />
        <FilterSelect
          name="status"
          label="Status"
          value={filters.status}
          any="All statuses"
          options={REFINEMENT_STATUSES.map((status) => [status, STATUS_LABELS[status]])}
        />
        <FilterSelect
          name="chat"
          label="Chat"
          value={chatId}
          any="All chats"
          options={chats.map((chat) => [chat.id, chat.title])}
        />
        <FilterSelect
          name="who"
          label="Who"
          value={filters.who}
          any="Anyone"
          options={memberOptions(memberships, actor.userId)}
        />
        <Button type="submit" variant="outline">
          Filter
        </Button>
      </form>
      {page.items.length === 0 ? (
        <EmptyState title="No refinements match">
          Refinements appear here after <code>/refine</code> in a chat, the Refine button, or an
          automatic review. Imported history shows with the status “Imported”.
        </EmptyState>
      ) : (
        <table className="table-cards w-full text-sm" data-testid="refinements-table">
          <TableHead
            columns={[
              "When",
              "Scope",
              "Trigger",
              "Status",
              "Summary",
              "Edits",
              "Rated answers",
              "",
            ]}
          />
          <tbody>
            {page.items.map((refinement) => {
              const counts = editCounts(refinement);
              const chatTitle = refinement.chatId ? chatTitles.get(refinement.chatId) : undefined;
              return (
                <tr
                  key={refinement.id}
                  className="border-border border-t align-top"
                  data-testid="refinement-row"
                  data-id={refinement.id}
                  data-scope={refinement.scope}
                  data-trigger={refinement.trigger}
                >
                  <td
                    data-label="When"
                    className="text-muted-foreground py-2 pr-2 whitespace-nowrap"
                  >
                    <time dateTime={refinement.createdAt}>
                      {new Date(refinement.createdAt).toLocaleString()}
                    </time>
                  </td>
                  <td data-label="Scope" className="pr-2">
                    <Badge data-testid="refinement-scope">{refinement.scope}</Badge>
                  </td>
                  <td data-label="Trigger" className="pr-2 whitespace-nowrap">
                    {TRIGGER_LABELS[refinement.trigger]}
                  </td>
                  <td data-label="Status" className="pr-2">
                    <StatusBadge
                      status={refinement.status}
                      rolledBackBy={rollbacks.get(refinement.id)}
                    />
                  </td>
                  <td data-label="Summary" className="pr-2">
                    <div data-testid="refinement-summary">
                      {refinement.summary || (
                        <span className="text-muted-foreground">(no summary)</span>
                      )}
                    </div>
                    <div className="text-muted-foreground text-xs">
                      {refinement.actorId
                        ? (names.get(refinement.actorId) ?? "former member")
                        : "—"}
                      {chatTitle ? ` · chat “${chatTitle}”` : ""}
                    </div>
                    {answered.get(refinement.id) ? (
                      <div className="text-muted-foreground text-xs" data-testid="answers-feedback">
                        Answers {answered.get(refinement.id)} rated-down answer
                        {answered.get(refinement.id) === 1 ? "" : "s"}
                      </div>
                    ) : null}
                  </td>
                  <td
                    data-label="Edits"
                    className="text-muted-foreground pr-2 text-xs whitespace-nowrap"
                    data-testid="refinement-counts"
                  >
                    {counts.created} created · {counts.updated} updated · {counts.deleted} deleted ·{" "}
                    {counts.failed} failed
                    {counts.pending ? ` · ${counts.pending} pending` : ""}
                  </td>
                  <td data-label="Rated answers" className="pr-2">
                    <RefinementOutcome
                      counts={outcomes.get(refinement.id)}
                      verdict={verdicts.get(refinement.id)}
                      judgeAfter={settings.feedbackJudgeAfter}
                      guardRail={settings.feedbackGuardRail}
                      rollback={
                        mayWriteRefinementScope(
                          actor,
                          refinement,
                          refinement.chatId !== null && chatTitles.has(refinement.chatId),
                        ) ? (
                          <RollbackControl
                            refinementId={refinement.id}
                            undoneBy={rollbacks.get(refinement.id)}
                          />
                        ) : undefined
                      }
                    />
                  </td>
                  <td className="text-right">
                    <Link
                      className="underline"
                      href={`/refinements/${refinement.id}`}
                      data-testid="refinement-link"
                    >
                      Details
                    </Link>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {page.nextCursor ? (
        <Link className="text-sm underline" href={`/refinements?${nextQuery.toString()}`}>
          Older refinements
        </Link>
      ) : null}
    </div>
  );
}
