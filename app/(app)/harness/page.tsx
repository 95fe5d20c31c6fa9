import { Pin } from "lucide-react";
import Link from "next/link";
import { z } from "zod";
import { BadQuery } from "@/components/bad-query";
import { EmptyState } from "@/components/empty-state";
import { entryHref } from "@/components/harness/entry-href";
import { PageHeader } from "@/components/page-header";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FilterSelect, SCOPE_OPTIONS } from "@/components/ui/filter-select";
import { Input } from "@/components/ui/input";
import { TableHead } from "@/components/ui/table-head";
import { requireActor } from "@/lib/auth";
import { ENTRY_KINDS, HarnessError } from "@/lib/harness";
import { getOwnChat, harnessFor, listChats } from "@/lib/harness-for-actor";
import { parseSearchParams, type RawSearchParams } from "@/lib/search-params";
import { queryOf } from "@/lib/utils";

export const metadata = { title: "Harness" };

export const dynamic = "force-dynamic";

const filtersSchema = z.object({
  chat: z.string().max(100).optional(),
  kind: z.enum(ENTRY_KINDS).optional().catch(undefined),
  scope: z.enum(["local", "global"]).optional().catch(undefined),
  path: z.string().trim().max(200).optional(),
  q: z.string().trim().max(200).optional(),
  cursor: z.string().max(500).optional(),
});

/** The View picker lists this many of the person's most recent chats (an older one: its page's "This chat’s notes"). */
const PICKER_CHATS = 100;

const kindLabels = {
  prompt: "Prompt note",
  memory: "Memory",
  skill: "Skill",
  subagent: "Sub-agent",
} as const;

export default async function HarnessPage({
  searchParams,
}: {
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const parsed = parseSearchParams(filtersSchema, await searchParams);
  if (!parsed.ok) return <BadQuery message={parsed.message} resetHref="/harness" />;
  const filters = parsed.data;
  const [recent, chat] = await Promise.all([
    listChats(actor, { limit: PICKER_CHATS }),
    filters.chat ? getOwnChat(actor, filters.chat) : null,
  ]);
  // The picker lists the most recent chats, and the chosen one when it is older.
  const chats =
    chat && !recent.items.some((c) => c.id === chat.id) ? [...recent.items, chat] : recent.items;
  const harness = await harnessFor(actor, chat?.id ?? null);
  const query = {
    kind: filters.kind,
    scope: chat ? filters.scope : ("global" as const),
    pathPrefix: filters.path || undefined,
    text: filters.q || undefined,
    limit: 50,
  };
  // A mangled cursor (`validation:cursor`) shows the first page rather than an error.
  const page = await harness
    .listEntries({ ...query, cursor: filters.cursor || undefined })
    .catch((error: unknown) => {
      if (HarnessError.isInstance(error) && error.code === "validation:cursor") {
        return harness.listEntries(query);
      }
      throw error;
    });
  const filtered = Boolean(
    filters.kind || filters.path || filters.q || (chat && filters.scope) || filters.cursor,
  );
  const nextQuery = queryOf({ ...filters, cursor: page.nextCursor });
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <PageHeader title="Harness">
          Prompt notes, memories, skills and sub-agents. Global entries serve the whole workspace;
          local ones one chat.
        </PageHeader>
        <Button asChild data-testid="new-entry">
          <Link href={`/harness/new${chat ? `?chat=${chat.id}` : ""}`}>New entry</Link>
        </Button>
      </div>
      <form className="flex flex-wrap items-end gap-2" data-testid="harness-filters">
        <FilterSelect
          name="chat"
          label="View"
          value={chat?.id}
          any="Global entries only"
          options={chats.map((c) => [c.id, `${c.title} (global + local)`])}
        />
        <FilterSelect
          name="kind"
          label="Kind"
          value={filters.kind}
          any="All kinds"
          options={ENTRY_KINDS.map((kind) => [kind, kindLabels[kind]])}
        />
        {chat ? (
          <FilterSelect
            name="scope"
            label="Scope"
            value={filters.scope}
            any="Both scopes"
            options={SCOPE_OPTIONS}
          />
        ) : null}
        <Input
          name="path"
          placeholder="Path prefix"
          defaultValue={filters.path}
          className="w-40"
          aria-label="Path prefix"
        />
        <Input
          name="q"
          placeholder="Search text"
          defaultValue={filters.q}
          className="w-48"
          aria-label="Search text"
        />
        <Button type="submit" variant="outline">
          Filter
        </Button>
      </form>
      {recent.nextCursor ? (
        <p className="text-muted-foreground text-xs" data-testid="harness-chat-picker-note">
          View lists your {PICKER_CHATS} most recent chats. For an older chat, open it and follow
          “This chat’s notes”.
        </p>
      ) : null}
      {page.items.length === 0 ? (
        filtered ? (
          <EmptyState title="No entries match these filters">
            <Link href={chat ? `/harness?chat=${chat.id}` : "/harness"} className="underline">
              Clear the filters
            </Link>
          </EmptyState>
        ) : (
          <EmptyState title={chat ? "No entries for this chat yet" : "No workspace entries yet"}>
            <div className="mx-auto max-w-xl space-y-2" data-testid="harness-empty">
              <p>
                The harness is what Cairn reads before every answer: prompt notes, memories, skills
                and sub-agents. Entries get written when you tell Cairn something worth keeping in a
                chat, when a refinement (Refine or <code>/refine</code> in a chat) turns a
                conversation into notes, or by hand with New entry.
              </p>
              {chat ? null : chats.length > 0 ? (
                <p>
                  This view shows entries for the whole workspace. Entries kept for one chat appear
                  when you pick the chat under View; all your memories are on the{" "}
                  <Link href="/memory" className="underline">
                    Memory
                  </Link>{" "}
                  page.
                </p>
              ) : (
                <p>
                  <Link href="/chat" className="underline">
                    Start a chat
                  </Link>{" "}
                  to give Cairn something to remember.
                </p>
              )}
            </div>
          </EmptyState>
        )
      ) : (
        <table className="table-cards w-full text-sm" data-testid="entries-table">
          <TableHead columns={["Entry", "Kind", "Path", "Version", "Updated"]} />
          <tbody>
            {page.items.map((entry) => (
              <tr
                key={`${entry.scope}/${entry.chatId}/${entry.kind}/${entry.id}`}
                className="border-border border-t"
                data-testid="entry-row"
              >
                <td data-label="Entry" className="py-2">
                  <Link className="font-medium hover:underline" href={entryHref(entry)}>
                    {entry.pinned ? (
                      <Pin className="mr-1 inline size-3" aria-label="pinned" />
                    ) : null}
                    {entry.title}
                  </Link>
                  <div className="text-muted-foreground font-mono text-xs">
                    [{entry.scope}:{entry.id}]
                  </div>
                </td>
                <td data-label="Kind">
                  <Badge>{kindLabels[entry.kind]}</Badge>
                </td>
                <td data-label="Path" className="font-mono text-xs">
                  {entry.path}
                </td>
                <td data-label="Version">v{entry.version}</td>
                <td data-label="Updated" className="text-muted-foreground">
                  {new Date(entry.updatedAt).toLocaleString()}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {page.nextCursor ? (
        <Link className="text-sm underline" href={`/harness?${nextQuery.toString()}`}>
          More entries
        </Link>
      ) : null}
    </div>
  );
}
