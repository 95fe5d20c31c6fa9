import { describe, expect, it } from "vitest";
import type { Actor } from "../actor";
import { HarnessForbiddenError } from "../errors";
import { approveRefinement, rejectRefinement, setOutcomeVerdict } from "./approve-refinement";
import {
  editor,
  member,
  otherMember,
  promptOf,
  refinementFixture,
  reply,
  requestOf,
  scriptedModel,
  sectionOf,
} from "./internal/test-support";
import { PLANNING_MAX_OUTPUT_TOKENS } from "./plan-refinement";
import { PLANNING_SYSTEM_PROMPT, REVIEW_SYSTEM_PROMPT } from "./prompts";
import { REVIEW_MAX_OUTPUT_TOKENS } from "./review-refinement";
import { runRefinement, type RunRefinementOptions } from "./run-refinement";

const conversation = [
  { role: "user", text: "Remember: we deploy on Fridays." },
  { role: "assistant", text: "Noted, deploys happen on Fridays." },
];

const deployPlan = {
  summary: "Remember the deploy day",
  rationale: "The user stated it",
  expectedOutcome: "The agent plans releases for Fridays",
  edits: [
    {
      action: "create",
      kind: "memory",
      id: "deploy-day",
      title: "Deploy day",
      content: "We deploy on Fridays.",
      reason: "Stated by the user",
    },
  ],
};

function setup() {
  const { fixture, store, clock, ids, lock } = refinementFixture();
  function run(overrides: Partial<RunRefinementOptions> & Pick<RunRefinementOptions, "models">) {
    const actor = overrides.actor ?? member;
    const chatId = overrides.chatId === undefined ? "chat-1" : overrides.chatId;
    return runRefinement({
      trigger: { kind: "explicit" },
      harness: fixture.harness(actor, chatId),
      store,
      actor,
      chatId,
      conversation,
      now: clock(),
      generateId: ids,
      lock,
      ...overrides,
    });
  }
  return { ...fixture, store, run, clock, lock };
}

describe("runRefinement", () => {
  it("explicit: skips the review gate, plans, applies and records everything", async () => {
    const { run, harness, store } = setup();
    const review = scriptedModel([reply({ shouldRefine: false, rationale: "never called" })]);
    const plan = scriptedModel([reply(deployPlan)], "planner-1");
    const refinement = await run({
      trigger: { kind: "explicit", instructions: "remember we deploy on Fridays" },
      models: { review, plan },
    });

    expect(review.doGenerateCalls).toHaveLength(0);
    expect(plan.doGenerateCalls).toHaveLength(1);
    expect(requestOf(plan.doGenerateCalls[0]!)).toMatchObject({
      maxOutputTokens: PLANNING_MAX_OUTPUT_TOKENS,
      responseFormat: { type: "json" },
      system: PLANNING_SYSTEM_PROMPT,
      sections: {
        instructions: "remember we deploy on Fridays",
        conversation: expect.stringContaining("user: Remember: we deploy on Fridays."),
        "scope-policy": expect.stringContaining("LOCAL"),
      },
    });

    expect(refinement).toMatchObject({
      trigger: "explicit",
      scope: "local",
      chatId: "chat-1",
      status: "applied",
      review: null,
      summary: "Remember the deploy day",
      rationale: "The user stated it",
      expectedOutcome: "The agent plans releases for Fridays",
      instructions: "remember we deploy on Fridays",
      harnessVersionBefore: 0,
      harnessVersionAfter: 1,
      model: "planner-1",
      actorId: member.userId,
      usage: { plan: { modelId: "planner-1", inputTokens: 100, outputTokens: 20 } },
    });
    expect(refinement.edits[0]).toMatchObject({
      result: "applied",
      before: null,
      after: { id: "deploy-day", content: "We deploy on Fridays.", scope: "local" },
    });
    expect(await store.getRefinement({ workspaceId: "w1", id: refinement.id })).toEqual(refinement);
    const entry = await harness(member, "chat-1").getEntry({ kind: "memory", id: "deploy-day" });
    expect(entry?.source).toBe("refinement");
  });

  it("automatic: the review gate sees the context and a declined review is recorded", async () => {
    const { run, store } = setup();
    const review = scriptedModel([reply({ shouldRefine: false, rationale: "small talk" })]);
    const plan = scriptedModel([reply(deployPlan)]);
    const refinement = await run({
      trigger: { kind: "every-n-turns" },
      turnsSinceLastReview: 25,
      models: { review, plan },
    });
    expect(plan.doGenerateCalls).toHaveLength(0);
    expect(requestOf(review.doGenerateCalls[0]!)).toMatchObject({
      maxOutputTokens: REVIEW_MAX_OUTPUT_TOKENS,
      system: REVIEW_SYSTEM_PROMPT,
      sections: {
        trigger: expect.stringContaining("Turns since the last review: 25"),
        "harness-overview": expect.stringContaining("Harness v0"),
        "recent-refinements": "(no refinements yet)",
        conversation: expect.stringContaining("we deploy on Fridays"),
      },
    });
    expect(refinement).toMatchObject({
      status: "declined",
      trigger: "every-n-turns",
      review: { shouldRefine: false, rationale: "small talk" },
      edits: [],
    });
    expect(await store.getLastReviewAt({ workspaceId: "w1", chatId: "chat-1" })).toBe(
      refinement.createdAt,
    );
  });

  it("automatic: an approving review passes its instructions to the planner", async () => {
    const { run } = setup();
    await run({ models: { review: scriptedModel([]), plan: scriptedModel([reply(deployPlan)]) } });
    const review = scriptedModel([
      reply({ shouldRefine: true, rationale: "lasting", instructions: "capture the deploy day" }),
    ]);
    const plan = scriptedModel([reply({ ...deployPlan, edits: [] })]);
    const refinement = await run({ trigger: { kind: "compaction" }, models: { review, plan } });
    expect(sectionOf(promptOf(review.doGenerateCalls[0]!), "recent-refinements")).toContain(
      "Remember the deploy day",
    );
    const planPrompt = promptOf(plan.doGenerateCalls[0]!);
    expect(sectionOf(planPrompt, "instructions")).toBe("capture the deploy day");
    expect(sectionOf(planPrompt, "harness")).toContain("[local:deploy-day] Deploy day");
    expect(sectionOf(planPrompt, "harness")).toContain("| We deploy on Fridays.");
    expect(refinement).toMatchObject({
      status: "no_changes",
      review: { shouldRefine: true, instructions: "capture the deploy day" },
      instructions: "capture the deploy day",
      usage: { review: { modelId: "mock-model" }, plan: { modelId: "mock-model" } },
    });
  });

  it("records a failed review (it starts the cooldown too)", async () => {
    const { run, store } = setup();
    const refinement = await run({
      trigger: { kind: "every-n-turns" },
      models: { review: scriptedModel([reply("not json")]), plan: scriptedModel([]) },
    });
    expect(refinement).toMatchObject({ status: "failed", error: { code: "refine:malformed" } });
    expect(await store.getLastReviewAt({ workspaceId: "w1" })).toBe(refinement.createdAt);
  });

  it.each([
    ["cut-off JSON", reply('{"summary":"Remember', "length"), "refine:truncated"],
    ["complete JSON at the limit", reply(deployPlan, "length"), "refine:truncated"],
    ["invalid JSON", reply("{not json"), "refine:malformed"],
    ["JSON of the wrong shape", reply({ summary: "x", edits: "none" }), "refine:malformed"],
    ["a failed call", new Error("503 upstream"), "refine:model"],
  ])("distinguishes %s, applies nothing and records it", async (_name, answer, code) => {
    const { run, harness } = setup();
    const refinement = await run({
      models: { review: scriptedModel([]), plan: scriptedModel([answer], "planner-2") },
    });
    expect(refinement).toMatchObject({
      status: "failed",
      error: { code },
      edits: [],
      model: "planner-2",
      harnessVersionBefore: 0,
      harnessVersionAfter: 0,
    });
    expect(await harness(member, "chat-1").getHarnessVersion()).toBe(0);
  });

  it("records an empty plan as no_changes", async () => {
    const { run } = setup();
    const refinement = await run({
      models: {
        review: scriptedModel([]),
        plan: scriptedModel([reply({ ...deployPlan, summary: "Nothing lasting", edits: [] })]),
      },
    });
    expect(refinement).toMatchObject({
      status: "no_changes",
      summary: "Nothing lasting",
      edits: [],
    });
  });

  it("accepts nulls for optional edit fields (strict structured-output modes)", async () => {
    const { run } = setup();
    const refinement = await run({
      models: {
        review: scriptedModel([]),
        plan: scriptedModel([
          reply({
            ...deployPlan,
            edits: [{ ...deployPlan.edits[0], path: null, metadata: null }],
          }),
        ]),
      },
    });
    expect(refinement.status).toBe("applied");
    expect(refinement.edits[0]!.after?.path).toBe("general");
  });

  it("refuses a global refinement for a member before calling any model", async () => {
    const { run } = setup();
    const plan = scriptedModel([reply(deployPlan)]);
    const refinement = await run({
      trigger: { kind: "explicit", global: true },
      models: { review: scriptedModel([]), plan },
    });
    expect(plan.doGenerateCalls).toHaveLength(0);
    expect(refinement).toMatchObject({
      status: "failed",
      scope: "global",
      error: { code: "forbidden:refinement" },
    });
  });

  it("applies a global refinement for an editor", async () => {
    const { run, harness } = setup();
    const plan = scriptedModel([reply(deployPlan)]);
    const refinement = await run({
      actor: editor,
      trigger: { kind: "explicit", global: true },
      models: { review: scriptedModel([]), plan },
    });
    expect(sectionOf(promptOf(plan.doGenerateCalls[0]!), "scope-policy")).toContain("GLOBAL");
    expect(refinement).toMatchObject({ status: "applied", scope: "global" });
    const entry = await harness(member, "chat-9").getEntry({
      kind: "memory",
      id: "deploy-day",
      scope: "global",
    });
    expect(entry?.content).toBe("We deploy on Fridays.");
  });

  describe("approval mode", () => {
    async function propose() {
      const context = setup();
      const refinement = await context.run({
        actor: editor,
        trigger: { kind: "explicit", global: true },
        globalNeedsApproval: true,
        models: { review: scriptedModel([]), plan: scriptedModel([reply(deployPlan)]) },
      });
      /** The proposal approved by `actor`, through their harness in `chatId`. */
      const approve = (actor: Actor, chatId: string | null = null) =>
        approveRefinement({
          id: refinement.id,
          actor,
          harness: context.harness(actor, chatId),
          store: context.store,
          now: context.clock(),
          lock: context.lock,
        });
      return { ...context, refinement, approve };
    }

    it("stores a global proposal as pending without applying it", async () => {
      const { refinement, harness } = await propose();
      expect(refinement).toMatchObject({ status: "pending", harnessVersionAfter: null });
      expect(refinement.edits[0]).toMatchObject({
        result: "pending",
        plannedVersion: null,
        entryKey: "global/-/memory/deploy-day",
        after: { content: "We deploy on Fridays." },
      });
      expect(await harness(editor, null).getHarnessVersion()).toBe(0);
    });

    it("applies on approval by an editor, once", async () => {
      const { approve } = await propose();
      await expect(approve(member, "chat-1")).rejects.toBeInstanceOf(HarnessForbiddenError);
      const approved = await approve(editor);
      expect(approved).toMatchObject({
        status: "applied",
        error: null,
        approval: { decision: "approved", by: editor.userId },
        harnessVersionBefore: 0,
        harnessVersionAfter: 1,
      });
      expect(approved.edits[0]).toMatchObject({ result: "applied", before: null });
      await expect(approve(editor)).rejects.toMatchObject({ code: "refine:not_pending" });
    });

    it("fails an edit whose entry changed since the proposal", async () => {
      const { harness, approve } = await propose();
      await harness(editor, null).createEntry({
        kind: "memory",
        id: "deploy-day",
        title: "Deploy day",
        content: "Manual.",
        global: true,
      });
      const approved = await approve(editor);
      expect(approved.status).toBe("failed");
      expect(approved.edits[0]!.error?.code).toBe("refine:changed_during_planning");
    });

    it("rejects without applying", async () => {
      const { refinement, harness, store, clock } = await propose();
      await expect(
        rejectRefinement({ id: refinement.id, actor: member, store, now: clock() }),
      ).rejects.toBeInstanceOf(HarnessForbiddenError);
      const rejected = await rejectRefinement({
        id: refinement.id,
        actor: editor,
        store,
        now: clock(),
        note: "not a team rule",
      });
      expect(rejected).toMatchObject({
        status: "rejected",
        approval: { decision: "rejected", by: editor.userId, note: "not a team rule" },
      });
      expect(rejected.edits[0]!.result).toBe("skipped");
      expect(await harness(editor, null).getHarnessVersion()).toBe(0);
    });
  });

  it("records outcome verdicts with their permissions", async () => {
    const { run, store, clock } = setup();
    const refinement = await run({
      models: { review: scriptedModel([]), plan: scriptedModel([reply(deployPlan)]) },
    });
    await expect(
      setOutcomeVerdict({
        id: refinement.id,
        verdict: "confirmed",
        note: "",
        actor: otherMember,
        store,
        now: clock(),
      }),
    ).rejects.toBeInstanceOf(HarnessForbiddenError);
    const now = clock();
    const confirmed = await setOutcomeVerdict({
      id: refinement.id,
      verdict: "confirmed",
      note: "  it planned Friday  ",
      actor: member,
      store,
      now,
    });
    expect(confirmed.outcome).toEqual({
      verdict: "confirmed",
      note: "it planned Friday",
      by: member.userId,
      at: now.toISOString(),
    });
  });

  it("never runs two refinements of one chat at once", async () => {
    const { run } = setup();
    let running = 0;
    let maxRunning = 0;
    const slowPlan = scriptedModel([]);
    slowPlan.doGenerate = async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      return reply({ ...deployPlan, edits: [] });
    };
    const results = await Promise.all([
      run({ models: { review: scriptedModel([]), plan: slowPlan } }),
      run({ models: { review: scriptedModel([]), plan: slowPlan } }),
      run({ chatId: "chat-2", models: { review: scriptedModel([]), plan: slowPlan } }),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      "no_changes",
      "no_changes",
      "no_changes",
    ]);
    // chat-1's two runs were serialized; chat-2 could overlap with one of them.
    expect(maxRunning).toBe(2);
  });
});
