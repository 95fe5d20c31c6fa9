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
    element.dataset.searchTarget = "true";
    element.classList.add("ring-2", "ring-yellow-400", "rounded-lg");
    // The chat view follows the end of the conversation as it mounts: bring the message back
    // into view until the page has settled.
    const scroll = () => element.scrollIntoView({ block: "center" });
    scroll();
    const timers = [50, 200, 500, 1000].map((delay) => setTimeout(scroll, delay));
    timers.push(setTimeout(() => element.classList.remove("ring-2", "ring-yellow-400"), 4000));
    return () => timers.forEach(clearTimeout);
  }, [messageId]);
  return null;
}
