import Link from "next/link";
import { notFound } from "next/navigation";
import { z } from "zod";
import { DiffView } from "@/components/harness/diff-view";
import { entryAsText } from "@/components/refinements/entry-as-text";
import { EntryControls, RestoreButton } from "@/components/harness/entry-controls";
import { EntryForm, type EntryFormValues } from "@/components/harness/entry-form";
import { RevisionReason } from "@/components/harness/revision-reason";
import { PromoteForm, SuggestEntryChange } from "@/components/review/suggest-forms";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Select } from "@/components/ui/input";
import { TableHead } from "@/components/ui/table-head";
import { memberNames } from "@/lib/accounts/queries";
import { requireActor } from "@/lib/auth";
import { canWriteGlobal, ENTRY_KINDS, type Entry, type Revision } from "@/lib/harness";
import { getOwnChat, harnessFor } from "@/lib/harness-for-actor";
import { firstSearchValues, type RawSearchParams } from "@/lib/search-params";

export const metadata = { title: "Harness entry" };

export const dynamic = "force-dynamic";

const paramsSchema = z.object({ kind: z.enum(ENTRY_KINDS), id: z.string().min(1).max(80) });
const querySchema = z.object({
  scope: z.enum(["local", "global"]).catch("local"),
  chat: z.string().max(100).optional().catch(undefined),
  from: z.string().max(100).optional().catch(undefined),
  to: z.string().max(100).optional().catch(undefined),
  saved: z.coerce.number().int().optional().catch(undefined),
});

function revisionVersion(revision: Revision): number {
  return revision.after?.version ?? (revision.before?.version ?? 0) + 1;
}

function formValues(entry: Entry): Partial<EntryFormValues> {
  const metadata = entry.metadata as {
    name?: string;
    description?: string;
    tools?: string[];
    model?: string;
  };
  return {
    kind: entry.kind,
    title: entry.title,
    content: entry.content,
    path: entry.path,
    name: metadata.name ?? "",
    description: metadata.description ?? "",
    tools: (metadata.tools ?? []).join(", "),
    model: metadata.model ?? "",
  };
}

export default async function EntryPage(props: {
  params: Promise<{ kind: string; id: string }>;
  searchParams: Promise<RawSearchParams>;
}) {
  const actor = await requireActor();
  const params = paramsSchema.safeParse(await props.params);
  if (!params.success) notFound();
  const { kind } = params.data;
  const id = decodeURIComponent(params.data.id);
  const query = querySchema.parse(firstSearchValues(await props.searchParams));
  const chat = query.scope === "local" && query.chat ? await getOwnChat(actor, query.chat) : null;
  if (query.scope === "local" && !chat) notFound();
  const harness = await harnessFor(actor, chat?.id ?? null);
  const [entry, history] = await Promise.all([
    harness.getEntry({ kind, id, scope: query.scope }),
    harness.history({ entryId: id, kind, scope: query.scope }),
  ]);
  if (!entry && history.length === 0) notFound();

  const editable = query.scope === "local" || canWriteGlobal(actor);
  const location = chat
    ? ({ scope: "local", chatId: chat.id } as const)
    : ({ scope: "global" } as const);
  const newestFirst = [...history].reverse();
  const to = history.find((revision) => revision.id === query.to) ?? newestFirst[0];
  const from =
    history.find((revision) => revision.id === query.from) ?? newestFirst[1] ?? newestFirst[0];
  // An existing entry's location is fixed: the form only names it (the entry's own chat).
  const chats = chat ? [{ id: chat.id, title: chat.title }] : [];
  const authors = await memberNames(actor.workspaceId);
  const authorOf = (revision: Revision) =>
    revision.actorId === actor.userId
      ? "you"
      : (authors.get(revision.actorId) ?? "a former member");

  return (
    <div className="space-y-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div className="min-w-0">
          <Link
            href={chat ? `/harness?chat=${chat.id}` : "/harness"}
            className="text-muted-foreground text-sm hover:underline"
          >
            ← Harness
          </Link>
          <h1 className="text-2xl font-semibold" data-testid="entry-title">
            {entry?.title ?? `${id} (deleted)`}
          </h1>
          <div className="text-muted-foreground mt-1 flex flex-wrap items-center gap-2 text-sm">
            <span className="font-mono">
              [{query.scope}:{id}]
            </span>
            <Badge>{kind}</Badge>
            {entry ? <span data-testid="entry-version">v{entry.version}</span> : null}
            {chat ? <span>chat “{chat.title}”</span> : <span>whole workspace</span>}
            {!editable ? (
              <Badge data-testid="read-only-badge" className="border-amber-500 text-amber-600">
                read-only for your role
              </Badge>
            ) : null}
          </div>
        </div>
        {editable && entry ? (
          <EntryControls
            kind={kind}
            id={id}
            version={entry.version}
            pinned={entry.pinned}
            location={location}
          />
        ) : null}
      </div>

      {entry && query.saved === entry.version ? (
        <p
          className="max-w-3xl rounded-md border border-green-600/40 bg-green-500/10 px-3 py-2 text-sm"
          data-testid="entry-saved"
          aria-live="polite"
        >
          {entry.version === 1 ? "Created." : `Saved as v${entry.version}.`}
        </p>
      ) : null}

      {entry ? (
        editable ? (
          <section className="max-w-3xl">
            <EntryForm
              key={`${entry.version}`}
              chats={chats.map((c) => ({ id: c.id, title: c.title }))}
              canWriteGlobal={canWriteGlobal(actor)}
              initial={formValues(entry)}
              existing={{
                id: entry.id,
                version: entry.version,
                scope: entry.scope,
                chatId: entry.chatId,
              }}
            />
          </section>
        ) : (
          <section className="max-w-3xl space-y-3">
            <pre
              className="border-border bg-muted rounded-md border p-4 text-sm whitespace-pre-wrap"
              data-testid="entry-content"
            >
              {entry.content}
            </pre>
            {/* Read-only for the role: a change is suggested for an editor's review instead. */}
            <SuggestEntryChange
              kind={entry.kind}
              id={entry.id}
              version={entry.version}
              content={entry.content}
            />
          </section>
        )
      ) : (
        <p className="text-muted-foreground text-sm">
          This entry is deleted. Restore a revision from its history to bring it back.
        </p>
      )}

      {entry && entry.scope === "local" && (entry.kind === "memory" || entry.kind === "prompt") ? (
        <section className="max-w-3xl" aria-label="Suggest for the team">
          <PromoteForm
            text={entry.content}
            title={entry.title}
            kind={entry.kind}
            canApply={canWriteGlobal(actor)}
          />
        </section>
      ) : null}

      <section className="space-y-3">
        <h2 className="text-lg font-medium">History</h2>
        <table className="table-cards w-full text-sm" data-testid="history-table">
          <TableHead columns={["Version", "Change", "Author", "Cause", "Reason", "When", ""]} />
          <tbody>
            {newestFirst.map((revision) => (
              <tr
                key={revision.id}
                className="border-border border-t"
                data-testid="history-row"
                data-version={revisionVersion(revision)}
              >
                <td data-label="Version" className="py-2">
                  v{revisionVersion(revision)}
                </td>
                <td data-label="Change">{revision.action}</td>
                <td data-label="Author" data-testid="history-author">
                  {authorOf(revision)}
                </td>
                <td data-label="Cause">
                  {revision.cause}
                  {revision.via ? (
                    <span className="text-muted-foreground block text-xs" data-testid="history-via">
                      via {revision.via}
                    </span>
                  ) : null}
                </td>
                <td data-label="Reason" className="text-muted-foreground">
                  <RevisionReason reason={revision.reason} />
                </td>
                <td data-label="When" className="text-muted-foreground">
                  {new Date(revision.createdAt).toLocaleString()}
                </td>
                <td className="text-right">
                  {editable &&
                  (revision.after || revision.before) &&
                  revision.id !== newestFirst[0]?.id ? (
                    <RestoreButton
                      revisionId={revision.id}
                      location={location}
                      label={`Restore v${revisionVersion(revision)}`}
                    />
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      {history.length > 1 && from && to ? (
        <section className="space-y-3">
          <h2 className="text-lg font-medium">Compare revisions</h2>
          <form
            key={`${from.id}-${to.id}`}
            className="flex flex-wrap items-end gap-2"
            data-testid="compare-form"
          >
            <input type="hidden" name="scope" value={query.scope} />
            {chat ? <input type="hidden" name="chat" value={chat.id} /> : null}
            <Select name="from" defaultValue={from.id} aria-label="From revision">
              {newestFirst.map((revision) => (
                <option key={revision.id} value={revision.id}>
                  v{revisionVersion(revision)} ({revision.action})
                </option>
              ))}
            </Select>
            <span className="pb-2 text-sm">→</span>
            <Select name="to" defaultValue={to.id} aria-label="To revision">
              {newestFirst.map((revision) => (
                <option key={revision.id} value={revision.id}>
                  v{revisionVersion(revision)} ({revision.action})
                </option>
              ))}
            </Select>
            <Button type="submit" variant="outline" data-testid="compare">
              Compare
            </Button>
          </form>
          <DiffView
            before={entryAsText(from.after, "(deleted)")}
            after={entryAsText(to.after, "(deleted)")}
            beforeLabel={`v${revisionVersion(from)}`}
            afterLabel={`v${revisionVersion(to)}`}
          />
        </section>
      ) : null}
    </div>
  );
}
