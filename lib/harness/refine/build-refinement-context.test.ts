import { describe, expect, it } from "vitest";
import { type HarnessEdit } from "../store";
import {
  buildRefinementContext,
  conversationTail,
  REFINEMENT_CONTEXT_LIMITS,
} from "./build-refinement-context";
import { editor, harnessFixture, member, sectionOf } from "./internal/test-support";
import { newRefinement } from "./refinement-store";
import { type ConversationMessage, type Refinement } from "./types";

function refinementAt(index: number): Refinement {
  const at = new Date(Date.UTC(2025, 0, 1, 0, 0, index)).toISOString();
  return {
    ...newRefinement({
      id: `r-${index}`,
      workspaceId: "w1",
      chatId: "chat-1",
      scope: "local",
      trigger: "explicit",
      status: "applied",
      summary: `Refinement number ${index}`,
      harnessVersionBefore: 1,
      harnessVersionAfter: 2,
      actorId: "member-1",
      outcome: index === 24 ? { verdict: "refuted", note: "no effect", by: "u", at: "x" } : null,
      createdAt: at,
    }),
    updatedAt: at,
  };
}

/** A long conversation: 3,000 numbered messages (~200,000 characters). */
function longConversation(): ConversationMessage[] {
  return Array.from({ length: 3_000 }, (_, index) => ({
    role: index % 2 === 0 ? "user" : "assistant",
    text: `message ${String(index).padStart(4, "0")} ${"·".repeat(50)}`,
  }));
}

async function setup() {
  const fixture = harnessFixture();
  const local = fixture.harness(member, "chat-1");
  const global = fixture.harness(editor, "chat-1");
  const edits: HarnessEdit[] = Array.from({ length: 45 }, (_, index) => ({
    op: "create",
    kind: "memory",
    id: `memory-${String(index).padStart(2, "0")}`,
    title: `Memory ${index}`,
    content: index === 0 ? "y".repeat(10_000) : `Fact number ${index}.`,
  }));
  await local.applyEdits({ edits });
  await global.createEntry({
    kind: "prompt",
    id: "tone",
    title: "Tone",
    content: "Be brief.",
    global: true,
  });
  return { ...fixture, local };
}

describe("buildRefinementContext", () => {
  it("builds the review and planning prompts within their limits", async () => {
    const { local } = await setup();
    const refinements = Array.from({ length: 25 }, (_, index) => refinementAt(index));
    const context = await buildRefinementContext({
      harness: local,
      refinements,
      conversation: longConversation(),
      trigger: "every-n-turns",
      turnsSinceLastReview: 25,
      scopePolicy: { scope: "local" },
      instructions: "remember we deploy on Fridays",
    });

    const review = context.reviewPrompt;
    expect(sectionOf(review, "trigger")).toBe(
      "Trigger: every-n-turns\nTurns since the last review: 25",
    );
    const overview = sectionOf(review, "harness-overview");
    expect(overview).toContain("Harness v2: 1 prompt notes, 45 memories");
    expect(overview).toContain("[global:tone] Tone");
    expect(overview.match(/^- \[local:memory-/gm)).toHaveLength(40);
    expect(overview).toContain("+5 more not shown");
    expect(overview).not.toContain("Fact number"); // no contents for the review gate
    const history = sectionOf(review, "recent-refinements").split("\n");
    expect(history).toHaveLength(20);
    expect(history[0]).toContain("Refinement number 24");
    expect(history[0]).toContain("outcome refuted: no effect");
    expect(history.at(-1)).toContain("Refinement number 5");
    const reviewConversation = sectionOf(review, "conversation");
    expect(reviewConversation.length).toBeLessThanOrEqual(40_000);
    expect(reviewConversation.length).toBeGreaterThan(39_000);
    expect(reviewConversation.endsWith(`message 2999 ${"·".repeat(50)}`)).toBe(true);
    expect(reviewConversation).not.toContain("message 0000");

    const planning = context.planningPrompt;
    expect(sectionOf(planning, "scope-policy")).toContain("LOCAL refinement");
    expect(sectionOf(planning, "instructions")).toBe("remember we deploy on Fridays");
    const harness = sectionOf(planning, "harness");
    expect(harness).toContain("  | Fact number 1.");
    expect(harness).toContain("more characters]"); // the 10,000-character entry is clipped
    expect(harness.length).toBeLessThan(REFINEMENT_CONTEXT_LIMITS.harnessContentChars + 20_000);
    expect(sectionOf(planning, "recent-refinements").split("\n")).toHaveLength(20);
    const planningConversation = sectionOf(planning, "conversation");
    expect(planningConversation.length).toBeLessThanOrEqual(80_000);
    expect(planningConversation.length).toBeGreaterThan(79_000);
    expect(planningConversation.endsWith(`message 2999 ${"·".repeat(50)}`)).toBe(true);

    expect(context.harnessVersion).toBe(2);
    expect(context.entryVersions["local/chat-1/memory/memory-07"]).toBe(1);
    expect(context.entryVersions["global/-/prompt/tone"]).toBe(1);
    expect(Object.keys(context.entryVersions)).toHaveLength(46);
  });

  it("is deterministic", async () => {
    const { local } = await setup();
    const options = {
      harness: local,
      refinements: [refinementAt(3), refinementAt(1), refinementAt(2)],
      conversation: longConversation().slice(0, 50),
      trigger: "explicit" as const,
      turnsSinceLastReview: 3,
      scopePolicy: { scope: "global" as const },
    };
    const first = await buildRefinementContext(options);
    const second = await buildRefinementContext(options);
    expect(second).toEqual(first);
    expect(sectionOf(first.planningPrompt, "scope-policy")).toContain("GLOBAL refinement");
    expect(sectionOf(first.planningPrompt, "instructions")).toContain("(none");
  });

  it("shows a feedback trigger's evidence to the review gate and the planner", async () => {
    const { local } = await setup();
    const options = {
      harness: local,
      refinements: [],
      conversation: [{ role: "user" as const, text: "When do we deploy?" }],
      trigger: "feedback" as const,
      turnsSinceLastReview: 1,
      scopePolicy: { scope: "local" as const },
    };
    const context = await buildRefinementContext({
      ...options,
      evidence: "Rated answer 1: Wrong fact. Comment: it is Friday.",
    });
    expect(sectionOf(context.reviewPrompt, "feedback")).toContain("Comment: it is Friday.");
    expect(sectionOf(context.planningPrompt, "feedback")).toContain("Wrong fact");
    expect(sectionOf(context.reviewPrompt, "trigger")).toContain("Trigger: feedback");
    const without = await buildRefinementContext(options);
    expect(without.planningPrompt).not.toContain("<feedback>");
  });

  it("keeps short conversations whole and never cuts a surrogate pair", () => {
    expect(conversationTail([{ role: "user", text: "hi" }], 100)).toBe("user: hi");
    const emoji = "😀".repeat(100);
    const cut = conversationTail([{ role: "user", text: emoji }], 101);
    expect(cut.length).toBeLessThanOrEqual(101);
    expect(cut.endsWith("😀")).toBe(true);
    expect(/^[\uDC00-\uDFFF]/.test(cut.split("\n")[1]!)).toBe(false);
  });
});
