"use client";

import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { cn } from "@/lib/utils";

/**
 * Where the chat list goes: beside the conversation on wide screens; on a phone, only on /chat
 * (below the box that starts a chat), so a conversation gets the whole width.
 */
export function ChatSidebarFrame({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  return (
    <aside
      className={cn("order-2 lg:order-none lg:block", pathname === "/chat" ? "block" : "hidden")}
    >
      <div className="lg:sticky lg:top-4 lg:max-h-[calc(100vh-6rem)] lg:overflow-y-auto lg:pr-1">
        {children}
      </div>
    </aside>
  );
}
