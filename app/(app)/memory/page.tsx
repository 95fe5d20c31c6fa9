import Link from "next/link";
import { EmptyState } from "@/components/empty-state";
import { entryHref } from "@/components/harness/entry-href";
import { MemoryImport } from "@/components/memory/memory-import";
import { MemoryList, type MemoryItemView, type OriginView } from "@/components/memory/memory-list";
import { requireActor } from "@/lib/auth";
import { listMemories, type MemoryOrigin } from "@/lib/memory";

export const metadata = { title: "Memory" };

export const dynamic = "force-dynamic";

function when(at: string): string {
  return new Date(at).toLocaleString();
}

function originView(origin: MemoryOrigin | null): OriginView | null {
  return origin
    ? {
        label: origin.label,
        detail: origin.detail,
        href: origin.href,
        via: origin.via,
        when: when(origin.at),
      }
    : null;
}

export default async function MemoryPage() {
  const actor = await requireActor();
  const memories = await listMemories(actor);
  const items: MemoryItemView[] = [
    ...memories.entries.map((entry): MemoryItemView => ({
      ...entry,
      when: when(entry.updatedAt),
      historyHref: entryHref({ ...entry, kind: "memory" }),
      origin: originView(entry.origin),
      lastChange: originView(entry.lastChange),
    })),
    ...memories.files.map((file): MemoryItemView => ({
      ...file,
      when: file.updatedAt ? when(file.updatedAt) : null,
      historyHref: `/files?dir=user&path=${encodeURIComponent(file.path)}`,
      lastChange: originView(file.lastChange),
    })),
  ];

  return (
    <div className="space-y-6">
      <div className="space-y-1">
        <h1 className="text-2xl font-semibold">Memory</h1>
        <p className="text-muted-foreground max-w-3xl text-sm">
          What Cairn remembers about you and uses in your chats: your memory files, which only you
          see, and memory notes — kept for one of your chats, or for the whole workspace. Each says
          where it came from. Change or delete anything that is wrong or that you would rather Cairn
          forgot.
        </p>
        <MemoryImport />
      </div>
      {items.length === 0 ? (
        <EmptyState title="Cairn does not remember anything about you yet">
          <div className="mx-auto max-w-xl space-y-2" data-testid="memory-empty">
            <p>
              Memory is what Cairn keeps between messages and between chats. It gets written in two
              ways:
            </p>
            <ul className="list-disc space-y-1 pl-5 text-left">
              <li>
                <strong>In a chat.</strong> Say “remember that I prefer short answers” and Cairn
                saves it to your memory files, or notes it for that chat.
              </li>
              <li>
                <strong>By a refinement.</strong> Press Refine (or type <code>/refine</code>) in a
                chat and Cairn turns what it learned into memory notes you can review.
              </li>
            </ul>
            <p>Everything it keeps shows up here, with where it came from.</p>
            <p>
              <Link href="/chat" className="underline">
                {memories.hasChats ? "Go to your chats" : "Start a chat"}
              </Link>
            </p>
          </div>
        </EmptyState>
      ) : (
        <MemoryList items={items} />
      )}
    </div>
  );
}
