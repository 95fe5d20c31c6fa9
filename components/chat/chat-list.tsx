"use client";

import { MessageSquarePlus, Pencil, Search, SendHorizontal, Trash2 } from "lucide-react";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useState } from "react";
import {
  createChatAction,
  deleteChatAction,
  listChatsAction,
  renameChatAction,
} from "@/app/(app)/chat/actions";
import { Button } from "@/components/ui/button";
import { ConfirmOrCancel } from "@/components/ui/confirm-or-cancel";
import { Form } from "@/components/ui/form";
import { FormMessage } from "@/components/ui/form-message";
import { Input } from "@/components/ui/input";
import { useAction } from "@/lib/actions/use-action";
import { cn } from "@/lib/utils";
import { storePendingFirstMessage, titleFromMessage } from "./timeline";

/** A chat as the list shows it. */
export interface ChatSummary {
  id: string;
  title: string;
  /** ISO 8601: the last activity. */
  updatedAt: string;
}

/** "just now", "5 min ago", "3 h ago", "yesterday", or a date. */
function whenLabel(iso: string, now: number): string {
  const minutes = Math.round((now - new Date(iso).getTime()) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  if (hours < 48) return "yesterday";
  return new Date(iso).toLocaleDateString();
}

/**
 * Start a chat by typing: the chat is created with a title made from the first message. The
 * "Temporary chat" switch makes it one that Cairn neither remembers nor lists (issue 26).
 */
export function StartChatForm() {
  const [text, setText] = useState("");
  const [temporary, setTemporary] = useState(false);
  const { pending, error, run, router } = useAction();
  const submit = () => {
    const message = text.trim();
    if (!message || pending) return;
    run(() => createChatAction({ title: titleFromMessage(message), temporary }), {
      onSuccess: ({ chatId }) => {
        storePendingFirstMessage(chatId, message);
        router.push(`/chat/${chatId}`);
      },
      refresh: false,
    });
  };
  return (
    <Form className="space-y-2" onSubmit={submit}>
      <div
        className={cn(
          "border-border focus-within:ring-ring flex items-end gap-2 rounded-lg border p-2 focus-within:ring-2",
          temporary && "border-dashed",
        )}
      >
        <textarea
          aria-label="Message"
          data-testid="start-chat-input"
          // The page is for typing: the box takes the focus (issue 26: it was the 30th Tab stop).
          autoFocus
          className="min-h-16 min-w-0 flex-1 resize-none bg-transparent p-1 text-sm focus:outline-none"
          placeholder={
            temporary
              ? "Ask anything. This chat is not remembered."
              : "Ask anything. Cairn remembers across chats."
          }
          value={text}
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              submit();
            }
          }}
        />
        <Button
          type="submit"
          aria-label="Start chat"
          data-testid="start-chat"
          disabled={pending || !text.trim()}
        >
          <SendHorizontal className="size-4" />
        </Button>
      </div>
      <div className="space-y-1">
        <button
          type="button"
          role="switch"
          aria-checked={temporary}
          aria-describedby="temporary-chat-hint"
          data-testid="temporary-chat-switch"
          onClick={() => setTemporary((on) => !on)}
          className="focus-visible:ring-ring inline-flex min-h-11 items-center gap-2 rounded-md px-1 text-sm focus-visible:ring-2 focus-visible:outline-none"
        >
          <span
            aria-hidden
            className={cn(
              "relative inline-block h-5 w-9 rounded-full border transition-colors",
              temporary ? "border-primary bg-primary" : "border-border bg-muted",
            )}
          >
            <span
              className={cn(
                "bg-background absolute top-0.5 size-3.5 rounded-full shadow transition-all",
                temporary ? "left-[1.15rem]" : "left-0.5",
              )}
            />
          </span>
          Temporary chat
        </button>
        <p id="temporary-chat-hint" className="text-muted-foreground px-1 text-xs">
          {temporary
            ? "Not remembered: no memory, company knowledge or notes; not listed once you leave it; deleted after 24 hours."
            : "Off: Cairn remembers what matters from this chat."}
        </p>
      </div>
      <FormMessage message={error} />
    </Form>
  );
}

/** The row's two buttons (shown on hover on wide screens): each opens its mode. */
const ROW_ACTIONS = [
  { mode: "rename", label: "Rename", hover: "hover:text-foreground", Icon: Pencil },
  { mode: "delete", label: "Delete", hover: "hover:text-destructive", Icon: Trash2 },
] as const;

function ChatRow({ chat, current, now }: { chat: ChatSummary; current: boolean; now: number }) {
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [value, setValue] = useState(chat.title);
  const { pending, error: failure, fieldErrors, run, router } = useAction();
  const error = fieldErrors.title?.[0] ?? failure;
  if (mode === "rename") {
    return (
      <li data-testid="chat-row" className="px-1 py-1">
        <Form
          className="space-y-1"
          onSubmit={() => {
            run(() => renameChatAction({ chatId: chat.id, title: value }), {
              onSuccess: () => setMode("view"),
            });
          }}
        >
          <Input
            aria-label="Chat title"
            data-testid="chat-rename-input"
            autoFocus
            value={value}
            onChange={(event) => setValue(event.target.value)}
          />
          <div className="flex gap-1">
            <Button type="submit" size="sm" disabled={pending} data-testid="chat-rename-save">
              Save
            </Button>
            <Button type="button" size="sm" variant="ghost" onClick={() => setMode("view")}>
              Cancel
            </Button>
          </div>
          <FormMessage message={error} />
        </Form>
      </li>
    );
  }
  return (
    <li
      data-testid="chat-row"
      className={cn("group hover:bg-muted rounded-md", current && "bg-muted")}
    >
      <div className="flex items-center gap-1 px-2 py-1.5">
        <Link
          className="min-w-0 flex-1"
          href={`/chat/${chat.id}`}
          data-testid="chat-link"
          aria-current={current ? "page" : undefined}
        >
          <span className="block truncate text-sm" data-testid="chat-row-title">
            {chat.title}
          </span>
          {/* Rendered on the server with its clock and time zone and hydrated with the
              browser's: "just now" may become "1 min ago", a date another format. That is
              expected here, not a hydration error. */}
          <time
            className="text-muted-foreground block text-xs"
            dateTime={chat.updatedAt}
            suppressHydrationWarning
          >
            {whenLabel(chat.updatedAt, now)}
          </time>
        </Link>
        <span
          className={cn(
            "flex shrink-0 items-center",
            mode === "view" &&
              "lg:opacity-0 lg:group-focus-within:opacity-100 lg:group-hover:opacity-100",
          )}
        >
          {ROW_ACTIONS.map(({ mode: to, label, hover, Icon }) => (
            <button
              key={to}
              type="button"
              // 44 px to tap on a phone; compact beside the title on wide screens.
              className={`text-muted-foreground ${hover} inline-flex size-11 items-center justify-center rounded lg:size-auto lg:p-1`}
              aria-label={`${label} ${chat.title}`}
              data-testid={`chat-${to}`}
              onClick={() => setMode(to)}
            >
              <Icon className="size-3.5" />
            </button>
          ))}
        </span>
      </div>
      {mode === "delete" ? (
        <div
          className="border-destructive/40 mx-2 mb-2 space-y-2 rounded-md border p-2 text-xs"
          data-testid="chat-delete-confirm"
        >
          <p>
            Delete “{chat.title}”? Its messages and this chat’s local notes go away. What Cairn
            saved to your memory stays.
          </p>
          <div className="flex gap-1">
            <ConfirmOrCancel
              label="Delete"
              testId="chat-delete-confirm-button"
              disabled={pending}
              onConfirm={() =>
                run(() => deleteChatAction({ chatId: chat.id }), {
                  onSuccess: () => {
                    setMode("view");
                    if (current) router.push("/chat");
                  },
                })
              }
              onCancel={() => setMode("view")}
            />
          </div>
          <FormMessage message={error} />
        </div>
      ) : null}
    </li>
  );
}

/** A page of chats as the server hands it out; `nextCursor` null: no more. */
export interface ChatListPage {
  items: ChatSummary[];
  nextCursor: string | null;
}

/** `a` then the chats of `b` not in `a` (a chat updated meanwhile moves up into `a`). */
function joined(a: ChatSummary[], b: ChatSummary[]): ChatSummary[] {
  const seen = new Set(a.map((chat) => chat.id));
  return [...a, ...b.filter((chat) => !seen.has(chat.id))];
}

/** How long typing must pause before the search asks the server. */
const SEARCH_DELAY_MS = 250;

/**
 * The loading half of the sidebar: the first page comes from the server layout; "Show more"
 * appends the next page (newest first, by cursor); a search filters what is loaded at once and,
 * while older chats are not loaded yet, asks the server for every title that matches. When the
 * layout's first page changes (a chat created, renamed, deleted or answered), the pages loaded
 * beyond it are loaded again in one call, so they show the change too.
 */
function useChatPages(initial: ChatListPage, query: string) {
  const [more, setMore] = useState<ChatListPage | null>(null);
  const [found, setFound] = useState<{ query: string; page: ChatListPage } | null>(null);
  const [loading, setLoading] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [seenInitial, setSeenInitial] = useState(initial);
  const [reload, setReload] = useState<{ cursor: string; count: number } | null>(null);

  // The layout sent a new first page: the pages loaded after it are reloaded (once) below.
  if (seenInitial !== initial) {
    setSeenInitial(initial);
    setReload(
      more && more.items.length > 0 && initial.nextCursor
        ? { cursor: initial.nextCursor, count: more.items.length }
        : null,
    );
    if (!initial.nextCursor || !more?.items.length) setMore(null);
  }
  useEffect(() => {
    if (!reload) return;
    let current = true;
    listChatsAction({ cursor: reload.cursor, limit: Math.min(reload.count, 200) })
      .then((result) => {
        if (current && result.ok) setMore(result.data);
      })
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, [reload]);

  const loaded = more ? joined(initial.items, more.items) : initial.items;
  const nextCursor = more ? more.nextCursor : initial.nextCursor;
  const complete = nextCursor === null;
  const needle = query.trim();

  useEffect(() => {
    // Titles filter what is loaded at once; the server also finds chats by their messages' words.
    if (!needle) return;
    let current = true;
    const timer = setTimeout(() => {
      listChatsAction({ query: needle })
        .then((result) => {
          if (!current) return;
          if (result.ok) setFound({ query: needle, page: result.data });
          else setFailure(result.error.message);
        })
        .catch(() => current && setFailure("The search failed. Try again."));
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [needle, initial]);

  const lowered = needle.toLowerCase();
  const filtered = loaded.filter((chat) => chat.title.toLowerCase().includes(lowered));
  const searched = !needle ? null : found?.query === needle ? found.page : undefined;

  const showMore = (): void => {
    const cursor = searched ? searched.nextCursor : nextCursor;
    if (!cursor || loading) return;
    setLoading(true);
    setFailure(null);
    listChatsAction(searched ? { cursor, query: needle } : { cursor })
      .then((result) => {
        if (!result.ok) return setFailure(result.error.message);
        const page = result.data;
        if (searched) {
          setFound({
            query: needle,
            page: { items: joined(searched.items, page.items), nextCursor: page.nextCursor },
          });
        } else {
          setMore({ items: joined(more?.items ?? [], page.items), nextCursor: page.nextCursor });
        }
      })
      .catch(() => setFailure("Loading more chats failed. Try again."))
      .finally(() => setLoading(false));
  };

  return {
    /** The chats to list now. */
    shown: !needle ? loaded : searched ? searched.items : filtered,
    /** Whether a "Show more" button is due. */
    hasMore: searched === undefined ? false : searched ? searched.nextCursor !== null : !complete,
    /** A search that waits for the server's answer (older chats not loaded yet). */
    searching: searched === undefined,
    loading,
    failure,
    showMore,
  };
}

/**
 * The person's chats, newest first, with search, rename and delete. The layout hands the first
 * page; older chats come a page at a time with "Show more".
 */
export function ChatSidebar({ initial, className }: { initial: ChatListPage; className?: string }) {
  const pathname = usePathname();
  const [query, setQuery] = useState("");
  // Relative times are computed once per render of the list; they need not tick.
  const [now] = useState(() => Date.now());
  const { shown, hasMore, searching, loading, failure, showMore } = useChatPages(initial, query);
  const hasChats = initial.items.length > 0;
  return (
    <nav className={cn("space-y-3", className)} aria-label="Chats" data-testid="chat-sidebar">
      <Button asChild variant="outline" className="w-full justify-start">
        <Link href="/chat" data-testid="new-chat">
          <MessageSquarePlus className="size-4" /> New chat
        </Link>
      </Button>
      {hasChats ? (
        <label className="relative block">
          <span className="sr-only">Search chats</span>
          <Search className="text-muted-foreground absolute top-2.5 left-2.5 size-4" />
          <Input
            className="pl-8"
            placeholder="Search chats"
            data-testid="chat-search"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </label>
      ) : null}
      {!hasChats ? (
        <p className="text-muted-foreground px-2 text-sm">Your chats appear here.</p>
      ) : shown.length === 0 ? (
        <p className="text-muted-foreground px-2 text-sm" data-testid="chat-search-empty">
          {searching ? "Searching…" : `No chat matches “${query.trim()}”.`}
        </p>
      ) : (
        <ul className="space-y-0.5" data-testid="chat-list">
          {shown.map((chat) => (
            <ChatRow
              key={chat.id}
              chat={chat}
              current={pathname === `/chat/${chat.id}` || pathname.startsWith(`/chat/${chat.id}/`)}
              now={now}
            />
          ))}
        </ul>
      )}
      {hasMore ? (
        <Button
          variant="ghost"
          size="sm"
          className="w-full"
          disabled={loading}
          data-testid="chat-list-more"
          onClick={showMore}
        >
          {loading ? "Loading…" : "Show more"}
        </Button>
      ) : null}
      <FormMessage message={failure} />
    </nav>
  );
}
