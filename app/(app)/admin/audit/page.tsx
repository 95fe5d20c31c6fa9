import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { PageHeader } from "@/components/page-header";
import { Badge } from "@/components/ui/badge";
import { Button, buttonVariants } from "@/components/ui/button";
import { FilterSelect, memberOptions } from "@/components/ui/filter-select";
import { Input } from "@/components/ui/input";
import { TableHead } from "@/components/ui/table-head";
import { listWorkspaceMembers } from "@/lib/accounts/queries";
import {
  AUDIT_KINDS,
  auditFiltersOf,
  auditQuerySchema,
  describeAuditEvent,
  type AuditKind,
} from "@/lib/audit";
import { auditEventsPage } from "@/lib/audit/queries";
import { requireRole } from "@/lib/auth";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";
import { queryOf } from "@/lib/utils";

export const metadata = { title: "Audit log" };

export const dynamic = "force-dynamic";

/** Who did what, when, across the workspace: admins only (the layout checks, and so does this page). */
export default async function AuditPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireRole("admin");
  const query = auditQuerySchema.parse(firstSearchValues(await searchParams));
  const [page, members] = await Promise.all([
    auditEventsPage({
      workspaceId: actor.workspaceId,
      filters: auditFiltersOf(query),
      cursor: query.cursor,
    }),
    listWorkspaceMembers(actor.workspaceId),
  ]);
  const filterQuery = { person: query.person, kind: query.kind, from: query.from, to: query.to };
  const nextQuery = page.nextCursor ? queryOf({ ...filterQuery, cursor: page.nextCursor }) : null;
  const csvQuery = queryOf(filterQuery).toString();
  const filtered = Object.values(filterQuery).some(Boolean);

  return (
    <div className="space-y-6">
      <PageHeader title="Audit log">
        Who did what and when across the workspace, newest first, with the door it came through.
        Nobody can change or delete an entry; old ones go only when a retention period is set on
        Settings.
      </PageHeader>
      <form className="flex flex-wrap items-end gap-2" data-testid="audit-filters">
        <FilterSelect
          name="person"
          label="Person"
          value={query.person}
          any="Anyone"
          options={memberOptions(members, actor.userId)}
        />
        <FilterSelect
          name="kind"
          label="What"
          value={query.kind}
          any="Everything"
          options={(Object.entries(AUDIT_KINDS) as [AuditKind, string][]).map(([kind, label]) => [
            kind,
            label,
          ])}
        />
        <label className="text-muted-foreground flex items-center gap-1 text-sm">
          From
          <Input
            type="date"
            name="from"
            defaultValue={query.from}
            className="w-auto"
            aria-label="From"
          />
        </label>
        <label className="text-muted-foreground flex items-center gap-1 text-sm">
          To
          <Input type="date" name="to" defaultValue={query.to} className="w-auto" aria-label="To" />
        </label>
        <Button type="submit" variant="outline" data-testid="audit-filter">
          Filter
        </Button>
        {filtered ? (
          <Link href="/admin/audit" className="text-sm underline">
            Clear
          </Link>
        ) : null}
        <a
          className={buttonVariants({ variant: "ghost", size: "sm" }) + " ml-auto"}
          href={`/api/admin/audit${csvQuery ? `?${csvQuery}` : ""}`}
          download
          data-testid="audit-csv"
        >
          Download CSV
        </a>
      </form>
      {page.events.length === 0 ? (
        <EmptyState title={filtered ? "No events match" : "Nothing recorded yet"}>
          Sign-ins, invites, role changes, tokens, model settings, company knowledge, global harness
          changes, refinements, exports and erasures appear here as they happen.
        </EmptyState>
      ) : (
        <table className="table-cards w-full text-sm" data-testid="audit-table">
          <TableHead columns={["When", "Who", "What", "Details", "Via"]} />
          <tbody>
            {page.events.map((event) => (
              <tr
                key={event.id}
                className="border-border border-t align-top"
                data-testid="audit-row"
                data-kind={event.kind}
                data-via={event.via}
              >
                <td data-label="When" className="text-muted-foreground py-2 pr-2 whitespace-nowrap">
                  <time dateTime={event.at.toISOString()}>
                    {event.at.toISOString().replace("T", " ").slice(0, 19)} UTC
                  </time>
                </td>
                <td data-label="Who" className="pr-2" data-testid="audit-who">
                  {event.actorName ?? <span className="text-muted-foreground">—</span>}
                </td>
                <td data-label="What" className="pr-2">
                  <Badge data-testid="audit-kind">{event.kindLabel}</Badge>
                </td>
                <td data-label="Details" className="pr-2 break-words" data-testid="audit-details">
                  {describeAuditEvent(event) || <span className="text-muted-foreground">—</span>}
                </td>
                <td data-label="Via" className="text-muted-foreground pr-2 text-xs break-all">
                  {event.via}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="flex gap-3 text-sm">
        {query.cursor ? (
          <Link href={`/admin/audit?${queryOf(filterQuery).toString()}`} className="underline">
            Newest
          </Link>
        ) : null}
        {nextQuery ? (
          <Link
            href={`/admin/audit?${nextQuery.toString()}`}
            className="underline"
            data-testid="audit-older"
          >
            Older events
          </Link>
        ) : null}
      </div>
    </div>
  );
}
