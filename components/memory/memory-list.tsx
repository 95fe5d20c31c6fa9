"use client";

import { FileText, Globe, MessageSquare } from "lucide-react";
import Link from "next/link";
import { useMemo, useState } from "react";
import {
  deleteMemoryEntryAction,
  deleteMemoryFileAction,
  saveMemoryFileAction,
  updateMemoryEntryAction,
} from "@/app/(app)/memory/actions";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmOrCancel } from "@/components/ui/confirm-or-cancel";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { useAction } from "@/lib/actions/use-action";
import type { MemoryEntryItem, MemoryFileItem } from "@/lib/memory";
import { cn } from "@/lib/utils";

/** Where a memory came from, as the server worded it (dates already formatted). */
export interface OriginView {
  label: string;
  detail: string | null;
  href: string | null;
  via: string | null;
  when: string;
}

/** A memory as the list shows it: the server's item, its dates worded, with its history link. */
export type MemoryItemView =
  | (Omit<MemoryFileItem, "updatedAt" | "lastChange"> & {
      when: string | null;
      historyHref: string;
      lastChange: OriginView | null;
    })
  | (Omit<MemoryEntryItem, "updatedAt" | "origin" | "lastChange"> & {
      when: string;
      historyHref: string;
      origin: OriginView | null;
      lastChange: OriginView | null;
    });

const FILTERS = [
  { value: "all", label: "All" },
  { value: "file", label: "Memory files" },
  { value: "local", label: "Chat memories" },
  { value: "global", label: "Workspace memories" },
] as const;
type Filter = (typeof FILTERS)[number]["value"];

function matchesFilter(item: MemoryItemView, filter: Filter): boolean {
  if (filter === "all") return true;
  if (filter === "file") return item.kind === "file";
  return item.kind === "entry" && item.scope === filter;
}

function searchText(item: MemoryItemView): string {
  return (
    item.kind === "file"
      ? `${item.path}\n${item.text ?? ""}`
      : `${item.title}\n${item.content}\n${item.chatTitle ?? ""}`
  ).toLowerCase();
}

/** The Memory page's one list: memory files and memory entries, with filters and search. */
export function MemoryList({ items }: { items: MemoryItemView[] }) {
  const [filter, setFilter] = useState<Filter>("all");
  const [query, setQuery] = useState("");
  const counts = useMemo(
    () =>
      Object.fromEntries(
        FILTERS.map((option) => [
          option.value,
          items.filter((item) => matchesFilter(item, option.value)).length,
        ]),
      ) as Record<Filter, number>,
    [items],
  );
  const needle = query.trim().toLowerCase();
  const shown = items.filter(
    (item) => matchesFilter(item, filter) && (!needle || searchText(item).includes(needle)),
  );
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-center gap-2">
        <div className="flex flex-wrap gap-1" role="group" aria-label="Show">
          {FILTERS.map((option) => (
            <Button
              key={option.value}
              type="button"
              size="sm"
              variant={filter === option.value ? "default" : "outline"}
              aria-pressed={filter === option.value}
              data-testid={`memory-filter-${option.value}`}
              onClick={() => setFilter(option.value)}
            >
              {option.label} ({counts[option.value]})
            </Button>
          ))}
        </div>
        <Input
          type="search"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          placeholder="Search memories"
          aria-label="Search memories"
          data-testid="memory-search"
          className="sm:w-56"
        />
      </div>
      {shown.length === 0 ? (
        <p className="text-muted-foreground text-sm" data-testid="memory-none-shown">
          Nothing here matches. Clear the search or choose “All”.
        </p>
      ) : (
        <ul className="space-y-3" data-testid="memory-list">
          {shown.map((item) => (
            <MemoryCard key={item.key} item={item} />
          ))}
        </ul>
      )}
    </div>
  );
}

function Origin({ label, origin }: { label: string; origin: OriginView }) {
  return (
    <div data-testid="memory-origin">
      <span className="text-muted-foreground">{label}: </span>
      {origin.label}
      {origin.detail ? (
        <>
          {" "}
          {origin.href ? (
            <Link className="underline" href={origin.href} data-testid="memory-origin-link">
              “{origin.detail}”
            </Link>
          ) : (
            <>“{origin.detail}”</>
          )}
        </>
      ) : origin.href ? (
        <>
          {" "}
          <Link className="underline" href={origin.href} data-testid="memory-origin-link">
            (details)
          </Link>
        </>
      ) : null}
      {origin.via ? <> through {origin.via}</> : null}
      <span className="text-muted-foreground"> · {origin.when}</span>
    </div>
  );
}

function MemoryCard({ item }: { item: MemoryItemView }) {
  const { pending, error, setError, run } = useAction();
  const [mode, setMode] = useState<"view" | "edit" | "delete">("view");
  const [expanded, setExpanded] = useState(false);
  const editable = item.kind === "file" ? item.text !== null : item.editable;
  const body =
    item.kind === "file" ? (item.text ?? `(binary file, ${item.size} bytes)`) : item.content;
  const [title, setTitle] = useState(item.kind === "entry" ? item.title : "");
  const [content, setContent] = useState(body);

  const done = { onSuccess: () => setMode("view") };
  /** Opens the editor or the delete confirmation, without the last attempt's error. */
  const start = (next: "edit" | "delete") => {
    setError(null);
    setMode(next);
  };
  const save = () =>
    run(
      () =>
        item.kind === "file"
          ? saveMemoryFileAction({
              path: item.path,
              content,
              baseCursor: item.cursor,
              baseContent: item.text,
            })
          : updateMemoryEntryAction({
              id: item.id,
              location: location(item),
              expectedVersion: item.version,
              title,
              content,
            }),
      done,
    );
  const remove = () =>
    run(
      () =>
        item.kind === "file"
          ? deleteMemoryFileAction({
              path: item.path,
              baseCursor: item.cursor,
              baseContent: item.text,
            })
          : deleteMemoryEntryAction({
              id: item.id,
              location: location(item),
              expectedVersion: item.version,
            }),
      done,
    );

  return (
    <li
      className="border-border bg-card min-w-0 space-y-2 rounded-lg border p-4 text-sm"
      data-testid="memory-item"
      data-kind={item.kind}
      data-scope={item.kind === "entry" ? item.scope : "file"}
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0 space-y-1">
          <div className="font-medium break-words" data-testid="memory-title">
            {item.kind === "file" ? <span className="font-mono">{item.path}</span> : item.title}
          </div>
          <div className="flex flex-wrap items-center gap-1">
            {item.kind === "file" ? (
              <Badge>
                <FileText className="mr-1 size-3" aria-hidden />
                Memory file
              </Badge>
            ) : item.scope === "global" ? (
              <Badge>
                <Globe className="mr-1 size-3" aria-hidden />
                Whole workspace
              </Badge>
            ) : (
              <Badge className="max-w-full">
                <MessageSquare className="mr-1 size-3 shrink-0" aria-hidden />
                <span className="truncate">Chat “{item.chatTitle ?? "a chat"}”</span>
              </Badge>
            )}
            {!editable && item.kind === "entry" ? (
              <Badge
                data-testid="memory-read-only"
                className="border-amber-500 text-amber-700 dark:text-amber-400"
              >
                Only editors and admins change it
              </Badge>
            ) : null}
          </div>
        </div>
        {mode === "view" ? (
          <div className="flex flex-wrap gap-1">
            {editable ? (
              <>
                <Button
                  size="sm"
                  variant="outline"
                  data-testid="memory-edit"
                  onClick={() => {
                    setContent(body);
                    setTitle(item.kind === "entry" ? item.title : "");
                    start("edit");
                  }}
                >
                  Edit
                </Button>
                <Button
                  size="sm"
                  variant="outline"
                  data-testid="memory-delete"
                  onClick={() => start("delete")}
                >
                  Delete
                </Button>
              </>
            ) : null}
            <Button size="sm" variant="ghost" asChild>
              <Link href={item.historyHref} data-testid="memory-history">
                History
              </Link>
            </Button>
          </div>
        ) : null}
      </div>

      {mode === "edit" ? (
        <Form className="space-y-2" onSubmit={save}>
          {item.kind === "entry" ? (
            <Input
              value={title}
              onChange={(event) => setTitle(event.target.value)}
              aria-label="Title"
              data-testid="memory-edit-title"
              maxLength={200}
            />
          ) : null}
          <textarea
            value={content}
            onChange={(event) => setContent(event.target.value)}
            aria-label="Memory"
            data-testid="memory-edit-content"
            rows={Math.min(12, Math.max(3, content.split("\n").length + 1))}
            className="border-border focus-visible:ring-ring w-full rounded-md border bg-transparent p-2 font-mono text-sm focus-visible:ring-2 focus-visible:outline-none"
          />
          <div className="flex gap-2">
            <Button type="submit" size="sm" disabled={pending} data-testid="memory-save">
              {pending ? "Saving…" : "Save"}
            </Button>
            <Button type="button" size="sm" variant="outline" onClick={() => setMode("view")}>
              Cancel
            </Button>
          </div>
        </Form>
      ) : (
        <div>
          <p
            className={cn("break-words whitespace-pre-wrap", !expanded && "line-clamp-4")}
            data-testid="memory-content"
          >
            {body}
          </p>
          {body.split("\n").length > 4 || body.length > 320 ? (
            <button
              type="button"
              className="text-muted-foreground text-xs underline"
              onClick={() => setExpanded(!expanded)}
              data-testid="memory-expand"
            >
              {expanded ? "Show less" : "Show all"}
            </button>
          ) : null}
        </div>
      )}

      {mode === "delete" ? (
        <div
          className="border-destructive/40 flex flex-wrap items-center gap-2 rounded-md border p-2"
          data-testid="memory-delete-confirm"
        >
          <span>
            Delete this memory? Cairn forgets it from the next message on
            {item.kind === "entry" ? "; its history keeps a copy you can restore." : "."}
          </span>
          <ConfirmOrCancel
            label="Delete"
            testId="memory-delete-confirm-button"
            disabled={pending}
            onConfirm={remove}
            cancelVariant="outline"
            onCancel={() => setMode("view")}
          />
        </div>
      ) : null}
      <FormMessage message={error} />

      <div className="text-muted-foreground space-y-0.5 text-xs">
        {item.kind === "entry" && item.origin ? (
          <Origin label="Written by" origin={item.origin} />
        ) : null}
        {item.lastChange ? (
          <Origin
            label={item.kind === "file" ? "Last change" : "Changed last by"}
            origin={item.lastChange}
          />
        ) : item.kind === "file" && item.when ? (
          <div>Updated {item.when}</div>
        ) : null}
      </div>
    </li>
  );
}

function location(item: Extract<MemoryItemView, { kind: "entry" }>) {
  return item.scope === "global"
    ? ({ scope: "global" } as const)
    : ({ scope: "local", chatId: item.chatId ?? "" } as const);
}
