"use client";

import { Search } from "lucide-react";
import { usePathname, useRouter } from "next/navigation";
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import type { SearchResultItem } from "@/lib/search";
import { cn } from "@/lib/utils";

const GROUPS: { kind: SearchResultItem["kind"]; label: string }[] = [
  { kind: "chat", label: "Chats" },
  { kind: "memory", label: "My memory" },
  { kind: "company", label: "Company knowledge" },
  { kind: "docs", label: "Company docs" },
  { kind: "harness", label: "Harness entries" },
];

/** Typing pauses this long before a search is sent. */
const DEBOUNCE_MS = 150;

function Snippet({ segments }: { segments: SearchResultItem["snippet"] }) {
  return (
    <>
      {segments.map((segment, index) =>
        segment.marked ? (
          <mark key={index} className="bg-yellow-200 text-inherit dark:bg-yellow-500/40">
            {segment.text}
          </mark>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </>
  );
}

function titleOf(hit: SearchResultItem): string {
  if (hit.kind === "chat") return hit.title || "Untitled chat";
  if (hit.kind === "harness") return hit.title || hit.location;
  return `${hit.path}${hit.title ? ` · ${hit.title}` : ""}`;
}

/**
 * The header's search: a button (and ⌘K / Ctrl+K anywhere) opens a dialog that searches chats,
 * memory, company knowledge, docs and harness entries as you type, grouped by kind with
 * snippets; ↑/↓ move, Enter opens (a chat at the message), Escape closes.
 */
export function SearchBox() {
  const router = useRouter();
  const pathname = usePathname();
  const [openOn, setOpenOn] = useState<string | null>(null);
  const open = openOn === pathname;
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<SearchResultItem[]>([]);
  const [status, setStatus] = useState<"idle" | "loading" | "done" | "error">("idle");
  const [active, setActive] = useState(0);
  const inputRef = useRef<HTMLInputElement>(null);
  const listId = useId();

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.metaKey || event.ctrlKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        setOpenOn(pathname);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [pathname]);

  useEffect(() => {
    if (open) inputRef.current?.focus();
  }, [open]);

  useEffect(() => {
    if (!open || query.trim() === "") return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      setStatus("loading");
      fetch(`/api/search?q=${encodeURIComponent(query)}`, { signal: controller.signal })
        .then(async (response) => {
          if (!response.ok) throw new Error(String(response.status));
          const body = (await response.json()) as { hits: SearchResultItem[] };
          setHits(body.hits);
          setActive(0);
          setStatus("done");
        })
        .catch((error: unknown) => {
          if ((error as Error).name !== "AbortError") setStatus("error");
        });
    }, DEBOUNCE_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [open, query]);

  // Grouped in a fixed order; the keyboard walks them in the order shown.
  const ordered = useMemo(() => {
    const groups = GROUPS.map((group) => ({
      ...group,
      hits: query.trim() ? hits.filter((hit) => hit.kind === group.kind) : [],
    })).filter((group) => group.hits.length > 0);
    // Each group's first position in the keyboard order.
    return groups.map((group, position) => ({
      ...group,
      start: groups.slice(0, position).reduce((sum, before) => sum + before.hits.length, 0),
    }));
  }, [hits, query]);
  const flat = ordered.flatMap((group) => group.hits);

  const close = () => setOpenOn(null);
  const go = (hit: SearchResultItem | undefined) => {
    if (!hit) return;
    close();
    router.push(hit.href);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setActive((index) => Math.min(flat.length - 1, index + 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setActive((index) => Math.max(0, index - 1));
    } else if (event.key === "Enter") {
      event.preventDefault();
      go(flat[active]);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
  };

  const optionId = (index: number) => `${listId}-option-${index}`;
  return (
    <>
      <button
        type="button"
        onClick={() => setOpenOn(pathname)}
        className="border-border text-muted-foreground hover:bg-muted focus-visible:ring-ring inline-flex h-9 items-center gap-2 rounded-md border px-2 text-sm focus-visible:ring-2 focus-visible:outline-none md:w-48 md:px-3 2xl:w-56"
        // The name holds all the visible text (WCAG 2.5.3, axe's label-content-name-mismatch).
        aria-label="Search… ⌘K"
        aria-keyshortcuts="Meta+K Control+K"
        data-testid="search-open"
      >
        <Search className="size-4 shrink-0" />
        <span className="hidden flex-1 text-left md:inline">Search…</span>
        <kbd className="bg-muted hidden rounded px-1.5 text-xs md:inline">⌘K</kbd>
      </button>
      {open && (
        <div
          className="fixed inset-0 z-50 flex items-start justify-center bg-black/40 p-2 pt-[10vh] md:p-4 md:pt-[12vh]"
          onMouseDown={(event) => {
            if (event.target === event.currentTarget) close();
          }}
          data-testid="search-dialog"
        >
          <div
            role="dialog"
            aria-modal="true"
            aria-label="Search"
            className="bg-background border-border flex max-h-[75vh] w-full max-w-2xl flex-col overflow-hidden rounded-lg border shadow-xl"
          >
            <div className="border-border flex items-center gap-2 border-b px-3">
              <Search className="text-muted-foreground size-4 shrink-0" />
              <input
                ref={inputRef}
                value={query}
                onChange={(event) => {
                  setQuery(event.target.value);
                  if (event.target.value.trim() === "") setStatus("idle");
                }}
                onKeyDown={onKeyDown}
                placeholder="Search chats, memory, company knowledge, docs, harness…"
                className="h-12 w-full bg-transparent text-base outline-none"
                role="combobox"
                aria-expanded={flat.length > 0}
                aria-controls={listId}
                aria-activedescendant={flat.length > 0 ? optionId(active) : undefined}
                aria-autocomplete="list"
                data-testid="search-input"
              />
            </div>
            <div id={listId} role="listbox" aria-label="Results" className="overflow-y-auto p-2">
              {ordered.map((group) => (
                <div key={group.kind} role="group" aria-label={group.label} className="mb-2">
                  <div className="text-muted-foreground px-2 py-1 text-xs font-medium uppercase">
                    {group.label}
                  </div>
                  {group.hits.map((hit, position) => {
                    const mine = group.start + position;
                    return (
                      <div
                        key={`${hit.href}-${hit.lineStart}-${mine}`}
                        id={optionId(mine)}
                        role="option"
                        aria-selected={mine === active}
                        onMouseEnter={() => setActive(mine)}
                        onClick={() => go(hit)}
                        className={cn(
                          "cursor-pointer rounded-md px-2 py-1.5 text-sm",
                          mine === active && "bg-muted",
                        )}
                        data-testid="search-result"
                        data-kind={hit.kind}
                      >
                        <div className="truncate font-medium">{titleOf(hit)}</div>
                        <div className="text-muted-foreground line-clamp-2 text-xs break-words">
                          <Snippet segments={hit.snippet} />
                        </div>
                      </div>
                    );
                  })}
                </div>
              ))}
              {query.trim() !== "" && status === "done" && flat.length === 0 && (
                <p className="text-muted-foreground p-3 text-sm" data-testid="search-empty">
                  Nothing found for “{query}”.
                </p>
              )}
              {status === "error" && (
                <p className="text-destructive p-3 text-sm">Search failed; try again.</p>
              )}
              {query.trim() === "" && (
                <p className="text-muted-foreground p-3 text-sm">
                  Words find passages; “quoted words” find a phrase. ↑↓ to move, Enter to open.
                </p>
              )}
            </div>
          </div>
        </div>
      )}
    </>
  );
}
