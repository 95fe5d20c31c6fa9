import type { ReactNode } from "react";
import { ChatSidebar } from "@/components/chat/chat-list";
import { ChatSidebarFrame } from "@/components/chat/chat-sidebar-frame";
import { requireActor } from "@/lib/auth";
import { listChats } from "@/lib/harness-for-actor";

/** Chat pages: the person's chats, newest first (the first page; more on demand), beside the conversation. */
export default async function ChatLayout({ children }: { children: ReactNode }) {
  const actor = await requireActor();
  const page = await listChats(actor);
  return (
    <div className="flex flex-col gap-8 lg:grid lg:grid-cols-[220px_minmax(0,1fr)] lg:gap-6">
      <ChatSidebarFrame>
        <ChatSidebar
          initial={{
            items: page.items.map((chat) => ({ ...chat, updatedAt: chat.updatedAt.toISOString() })),
            nextCursor: page.nextCursor,
          }}
        />
      </ChatSidebarFrame>
      <div className="order-1 min-w-0 lg:order-none">{children}</div>
    </div>
  );
}
