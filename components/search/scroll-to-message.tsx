"use client";

import { useEffect } from "react";

/**
 * Brings the chat's message `messageId` (from a search hit, `?m=<id>`) into view and marks it
 * for a moment, so a person sees the passage they searched for.
 */
export function ScrollToMessage({ messageId }: { messageId: string | undefined }) {
  useEffect(() => {
    if (!messageId) return;
    const element = document.querySelector<HTMLElement>(
      `[data-message-id="${CSS.escape(messageId)}"]`,
    );
    if (!element) return;
    element.scrollIntoView({ block: "center" });
    element.dataset.searchTarget = "true";
    element.classList.add("ring-2", "ring-yellow-400", "rounded-lg");
    const timer = setTimeout(() => {
      element.classList.remove("ring-2", "ring-yellow-400");
    }, 4000);
    return () => clearTimeout(timer);
  }, [messageId]);
  return null;
}
