"use client";

import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from "react";

/** How close to the latest message (in px) still counts as "at the latest message". */
const NEAR_LATEST_PX = 96;

/** Pixels between the end of the timeline and the top of the input bar (≤ 0: visible). */
function distanceToLatest(end: HTMLElement | null, bar: HTMLElement | null): number {
  if (!end) return 0;
  const barHeight = bar?.getBoundingClientRect().height ?? 0;
  return end.getBoundingClientRect().top - (window.innerHeight - barHeight);
}

/** Scrolls the window down just enough to show the end of the timeline above the input bar. */
function revealLatest(end: HTMLElement | null, bar: HTMLElement | null, behavior?: ScrollBehavior) {
  const by = distanceToLatest(end, bar);
  if (by > 0) window.scrollBy({ top: by, behavior });
}

/**
 * Keeps the page scrolled to the latest message while the conversation grows, the way chat apps
 * do: the page opens at the latest message; while it streams, it follows; once the person scrolls
 * up, it stops following until they come back down (or press "jump to latest").
 *
 * The page (window) scrolls, not an inner box, so `end` marks the end of the timeline and `bar`
 * is the sticky input bar that covers the bottom of the viewport.
 */
export function useFollowStream(options: {
  timeline: RefObject<HTMLElement | null>;
  end: RefObject<HTMLElement | null>;
  bar: RefObject<HTMLElement | null>;
}) {
  const { timeline, end, bar } = options;
  const following = useRef(true);
  const [atLatest, setAtLatest] = useState(true);

  const scrollToLatest = (behavior: ScrollBehavior = "auto") => {
    revealLatest(end.current, bar.current, behavior);
    following.current = true;
    setAtLatest(true);
  };

  // Open at the latest message (a reloaded chat, a chat opened from the sidebar).
  useLayoutEffect(() => {
    revealLatest(end.current, bar.current);
  }, [end, bar]);

  // The person's own scrolling decides whether the page keeps following: scrolling up stops it,
  // coming back down to the latest message resumes it. The page's own scrolling only goes down,
  // so a fast-growing reply (more than NEAR_LATEST_PX between frames) never stops it.
  useEffect(() => {
    let lastY = window.scrollY;
    const onScroll = () => {
      const y = window.scrollY;
      const near = distanceToLatest(end.current, bar.current) <= NEAR_LATEST_PX;
      if (near) following.current = true;
      else if (y < lastY - 1) following.current = false;
      lastY = y;
      setAtLatest(near || following.current);
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    return () => window.removeEventListener("scroll", onScroll);
  }, [end, bar]);

  // Growth (streamed text, a tool call, a refinement card) keeps the latest message in view.
  useEffect(() => {
    const element = timeline.current;
    if (!element) return;
    const observer = new ResizeObserver(() => {
      if (following.current) revealLatest(end.current, bar.current);
      else setAtLatest(distanceToLatest(end.current, bar.current) <= NEAR_LATEST_PX);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [timeline, end, bar]);

  return { atLatest, scrollToLatest };
}
