import type { UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import type { Refinement } from "@/lib/harness";
import { buildTimeline, titleFromMessage } from "./timeline";

const message = (id: string, role: UIMessage["role"] = "user"): UIMessage => ({
  id,
  role,
  parts: [],
});
const refinement = (id: string, createdAt: string) => ({ id, createdAt }) as Refinement;

describe("buildTimeline", () => {
  it("places each refinement card before the first message written after it", () => {
    const times: Record<string, string> = {
      a: "2026-01-01T10:00:00.000Z",
      b: "2026-01-01T10:01:00.000Z",
      c: "2026-01-01T10:05:00.000Z",
    };
    const items = buildTimeline({
      messages: [message("a"), message("b"), message("c")],
      refinements: [
        refinement("late", "2026-01-01T10:06:00.000Z"),
        refinement("early", "2026-01-01T10:02:00.000Z"),
      ],
      timeOf: (item) => times[item.id]!,
    });
    expect(
      items.map((item) => (item.kind === "message" ? item.message.id : item.refinement.id)),
    ).toEqual(["a", "b", "early", "c", "late"]);
  });

  it("puts a card requested during a turn after that turn's answer, not between the two", () => {
    const times: Record<string, string> = {
      ask: "2026-01-01T10:00:00.000Z",
      // The answer is stored when the turn ends, after the refinement it asked for was queued.
      answer: "2026-01-01T10:00:05.000Z",
      next: "2026-01-01T10:03:00.000Z",
    };
    const items = buildTimeline({
      messages: [message("ask"), message("answer", "assistant"), message("next")],
      refinements: [
        refinement("during", "2026-01-01T10:00:01.000Z"),
        refinement("after", "2026-01-01T10:01:00.000Z"),
      ],
      timeOf: (item) => times[item.id]!,
    });
    expect(
      items.map((item) => (item.kind === "message" ? item.message.id : item.refinement.id)),
    ).toEqual(["ask", "answer", "during", "after", "next"]);
  });
});

describe("titleFromMessage", () => {
  it("uses the first line, cut at a word", () => {
    expect(titleFromMessage("  Plan the trip\nwith details")).toBe("Plan the trip");
    const long = "Please help me write a long letter to the landlord about the broken heating";
    const title = titleFromMessage(long);
    expect(title.endsWith("…")).toBe(true);
    expect(title.length).toBeLessThanOrEqual(61);
    expect(long.startsWith(title.slice(0, -1))).toBe(true);
    expect(titleFromMessage("   ")).toBe("New chat");
  });
});
