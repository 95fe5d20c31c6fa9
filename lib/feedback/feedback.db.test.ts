import type { UIMessage } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, describe, expect, it, vi } from "vitest";
import { createUserInWorkspace } from "@/lib/accounts/accounts";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import type * as AiModule from "@/lib/ai";
import { testDatabaseProvider } from "@/lib/db/testing";
import type { Actor, TurnTraceEvent } from "@/lib/harness";
import { streamOf, textReply } from "@/lib/harness/testing";
import { DEFAULT_WORKSPACE_SETTINGS } from "@/lib/workspace-settings";
vi.mock("server-only", () => ({}));

const chatModel = new MockLanguageModelV4({
  doStream: async () => streamOf(textReply("The deploy day is Tuesday.")),
});

// Refinements are only requested here (no worker runs them): the refinement model stays idle.
vi.mock("@/lib/ai", async (importOriginal) => {
  const { chatAndRefineModels } = await import("@/lib/ai/testing");
  return chatAndRefineModels(await importOriginal<typeof AiModule>(), { chat: chatModel });
});

describe(`answer outcomes (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "editor" });
  const settings = {
    ...DEFAULT_WORKSPACE_SETTINGS,
    feedbackRefineThreshold: 3,
    feedbackJudgeAfter: 10,
  };

  afterAll(async () => {
    const { getJobQueue } = await import("@/lib/jobs");
    await getJobQueue().stop({ timeoutMs: 1_000 });
  });

  /** Runs one real chat turn in `chatId`; returns its turn id. */
  async function turn(actor: Actor, chatId: string, text = "When do we deploy?"): Promise<string> {
    const { startChatTurn } = await import("@/lib/chat/run-chat-turn");
    const message: UIMessage = {
      id: globalThis.crypto.randomUUID(),
      role: "user",
      parts: [{ type: "text", text }],
    };
    const started = await startChatTurn({ actor, chatId, message });
    if (started.status !== "started") throw new Error(`turn did not start: ${started.status}`);
    await started.response.text();
    await started.finished;
    return started.turnId;
  }

  async function rate(
    actor: Actor,
    turnId: string,
    rating: "good" | "bad" | null,
    extra: { comment?: string; tags?: ("wrong-fact" | "forgot" | "too-long")[] } = {},
    overrides: Partial<typeof settings> = {},
  ) {
    const { rateTurn } = await import("./index");
    const { requestFeedbackRefinement } = await import("@/lib/refinement-runs");
    return rateTurn({
      actor,
      input: { turnId, rating, ...extra },
      source: "chat",
      settings: { ...settings, ...overrides },
      requestRefinement: requestFeedbackRefinement,
    });
  }

  let deployEntry = "";
  let refinementId = "";
  const badTurns: string[] = [];

  it("stores a rating with the turn's harness version, entries shown, dirs' cursors and model", async () => {
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const harness = await harnessFor(world.actor, null);
    const entry = await harness.createMemory({
      title: "Deploy day",
      content: "We deploy on Tuesdays.",
      global: true,
      reason: "test",
    });
    deployEntry = `global:${entry.id}`;
    const { version } = await world.database.db.harnessCounter.findUniqueOrThrow({
      where: { workspaceId: world.actor.workspaceId },
    });
    const turnId = await turn(world.actor, world.chatId);
    const result = await rate(world.actor, turnId, "good");
    expect(result.status).toBe("rated");
    if (result.status !== "rated") return;
    const row = await world.database.db.turn.findUniqueOrThrow({ where: { id: turnId } });
    const loaded = (JSON.parse(row.trace!) as TurnTraceEvent[]).filter(
      (event) => event.type === "dir.loaded",
    );
    expect(loaded.length).toBeGreaterThan(0);
    expect(result.outcome).toMatchObject({
      turnId,
      chatId: world.chatId,
      rating: "good",
      source: "chat",
      harnessVersion: version,
      model: row.model,
      dirCursors: Object.fromEntries(
        loaded.map((event) => [event.harnessDir, event.type === "dir.loaded" && event.cursor]),
      ),
    });
    expect(result.outcome.entriesShown).toContain(deployEntry);
    expect(result.refinementId).toBeNull();

    // Changeable: the other thumb replaces it (one row), null takes it back.
    const changed = await rate(world.actor, turnId, "bad", { comment: "wrong", tags: ["forgot"] });
    expect(changed.status === "rated" && changed.outcome).toMatchObject({
      rating: "bad",
      comment: "wrong",
      tags: ["forgot"],
    });
    expect(await world.database.db.turnOutcome.count({ where: { turnId } })).toBe(1);
    expect((await rate(world.actor, turnId, null)).status).toBe("cleared");
    expect(await world.database.db.turnOutcome.count({ where: { turnId } })).toBe(0);
  });

  it("fires the feedback trigger once, at the third thumbs-down, and records the feedback it answers", async () => {
    for (let index = 0; index < 4; index += 1) badTurns.push(await turn(world.actor, world.chatId));
    const first = await rate(world.actor, badTurns[0]!, "bad", {
      comment: "It said Tuesday",
      tags: ["wrong-fact"],
    });
    const second = await rate(world.actor, badTurns[1]!, "bad", { tags: ["forgot"] });
    expect(first.status === "rated" && first.refinementId).toBeNull();
    expect(second.status === "rated" && second.refinementId).toBeNull();
    // Rating a thumbs-down again does not count twice.
    await rate(world.actor, badTurns[1]!, "bad", { comment: "again", tags: ["forgot"] });
    expect(await world.database.db.refinement.count({ where: { trigger: "feedback" } })).toBe(0);

    const third = await rate(world.actor, badTurns[2]!, "bad", {
      comment: "Too long",
      tags: ["too-long"],
    });
    expect(third.status).toBe("rated");
    refinementId = (third.status === "rated" && third.refinementId) || "";
    expect(refinementId).not.toBe("");
    const refinement = await world.database.db.refinement.findUniqueOrThrow({
      where: { id: refinementId },
    });
    expect(refinement).toMatchObject({
      trigger: "feedback",
      scope: "local",
      chatId: world.chatId,
      status: "queued",
    });
    const answered = await world.database.db.turnOutcome.findMany({
      where: { answeredBy: refinementId },
      select: { turnId: true },
    });
    expect(answered.map((row) => row.turnId).sort()).toEqual(badTurns.slice(0, 3).sort());

    // A fourth thumbs-down is one since that refinement: nothing fires.
    const fourth = await rate(world.actor, badTurns[3]!, "bad");
    expect(fourth.status === "rated" && fourth.refinementId).toBeNull();
    expect(await world.database.db.refinement.count({ where: { trigger: "feedback" } })).toBe(1);

    // The review's evidence: the rated turns with their comments and tags.
    const { feedbackEvidence, listAnsweredFeedback } = await import("./index");
    const evidence = await feedbackEvidence({ actor: world.actor, refinementId });
    expect(evidence).toContain("It said Tuesday");
    expect(evidence).toContain("Wrong fact");
    expect(evidence).toContain("Too long");
    expect(evidence).toContain("The deploy day is Tuesday.");
    expect(evidence).toContain("When do we deploy?");
    const cited = await listAnsweredFeedback({ viewer: world.actor, refinementId });
    expect(cited.map((item) => item.comment)).toEqual(["It said Tuesday", "again", "Too long"]);
  });

  it("fires once when thumbs-down arrive at the same time", async () => {
    const chat = await world.database.db.chat.create({
      data: { workspaceId: world.actor.workspaceId, userId: world.actor.userId, title: "Race" },
    });
    // As a member: only the chat's own trigger (an editor's could also start a global review).
    const member: Actor = { ...world.actor, role: "member" };
    const turns: string[] = [];
    for (let index = 0; index < 5; index += 1) turns.push(await turn(member, chat.id));
    await rate(member, turns[0]!, "bad");
    await rate(member, turns[1]!, "bad");
    const results = await Promise.all(turns.slice(2).map((id) => rate(member, id, "bad")));
    const fired = results.flatMap((result) =>
      result.status === "rated" && result.refinementId ? [result.refinementId] : [],
    );
    expect(fired).toHaveLength(1);
    expect(
      await world.database.db.refinement.count({ where: { chatId: chat.id, trigger: "feedback" } }),
    ).toBe(1);
    const claimed = await world.database.db.turnOutcome.findMany({
      where: { chatId: chat.id, answeredBy: { not: null } },
    });
    expect(claimed.length).toBeGreaterThanOrEqual(3);
    expect(new Set(claimed.map((row) => row.answeredBy))).toEqual(new Set(fired));
  });

  it("judges the refinement supported once ten rated answers follow it, with Wilson intervals", async () => {
    // The review applied: one change, the harness moved on to a new version.
    const { harnessFor } = await import("@/lib/harness-for-actor");
    const harness = await harnessFor(world.actor, world.chatId);
    const before = await world.database.db.harnessCounter.findUniqueOrThrow({
      where: { workspaceId: world.actor.workspaceId },
    });
    await harness.createMemory({
      title: "Deploy day fix",
      content: "Deploys are on Fridays.",
      reason: "feedback",
    });
    const after = await world.database.db.harnessCounter.findUniqueOrThrow({
      where: { workspaceId: world.actor.workspaceId },
    });
    await world.database.db.refinement.update({
      where: { id: refinementId },
      data: {
        status: "applied",
        harnessVersionBefore: before.version,
        harnessVersionAfter: after.version,
        expectedOutcome: "Answers name the right deploy day.",
      },
    });
    const { getAutoVerdicts, outcomeOverview } = await import("./index");
    for (let index = 0; index < 10; index += 1) {
      const turnId = await turn(world.actor, world.chatId);
      await rate(world.actor, turnId, "good");
      const verdicts = await getAutoVerdicts([refinementId]);
      if (index < 9) expect(verdicts.has(refinementId)).toBe(false);
      else
        expect(verdicts.get(refinementId)).toMatchObject({
          verdict: "supported",
          regressed: false,
          before: { total: 4, good: 0 },
          after: { total: 10, good: 10 },
        });
    }
    const verdict = (await getAutoVerdicts([refinementId])).get(refinementId)!;
    // Hand-computed 95% Wilson intervals: 0 of 4 → [0, 0.4899]; 10 of 10 → [0.7225, 1].
    expect(verdict.before.high).toBeCloseTo(0.4899, 4);
    expect(verdict.before.low).toBe(0);
    expect(verdict.after.low).toBeCloseTo(0.7225, 4);
    expect(verdict.after.high).toBe(1);

    const overview = await outcomeOverview({
      workspaceId: world.actor.workspaceId,
      scope: { kind: "chat", chatId: world.chatId },
    });
    expect(overview.ranges.map((range) => [range.fromVersion, range.good, range.total])).toEqual([
      [0, 0, 4],
      [after.version, 10, 10],
    ]);
    expect(overview.ranges[1]!.startedBy).toBe(refinementId);
  });

  it("judges not supported when the answers after it are no better", async () => {
    const chat = await world.database.db.chat.create({
      data: { workspaceId: world.actor.workspaceId, userId: world.actor.userId, title: "Second" },
    });
    for (let index = 0; index < 2; index += 1)
      await rate(
        world.actor,
        await turn(world.actor, chat.id),
        "good",
        {},
        { feedbackRefineThreshold: 0 },
      );
    const { harnessFor } = await import("@/lib/harness-for-actor");
    await (
      await harnessFor(world.actor, chat.id)
    ).createMemory({ title: "Style", content: "Be brief.", reason: "x" });
    const { version } = await world.database.db.harnessCounter.findUniqueOrThrow({
      where: { workspaceId: world.actor.workspaceId },
    });
    const refinement = await world.database.db.refinement.create({
      data: {
        workspaceId: world.actor.workspaceId,
        chatId: chat.id,
        scope: "local",
        trigger: "explicit",
        status: "applied",
        harnessVersionBefore: version - 1,
        harnessVersionAfter: version,
      },
    });
    const { getAutoVerdicts } = await import("./index");
    for (let index = 0; index < 2; index += 1)
      await rate(
        world.actor,
        await turn(world.actor, chat.id),
        "bad",
        {},
        {
          feedbackRefineThreshold: 0,
          feedbackJudgeAfter: 2,
        },
      );
    expect((await getAutoVerdicts([refinement.id])).get(refinement.id)).toMatchObject({
      verdict: "not_supported",
      before: { total: 2, good: 2 },
      after: { total: 2, good: 0 },
    });
  });

  it("lets a person rate only answers of their own chats; workspace numbers count everyone's without text", async () => {
    const { user } = await createUserInWorkspace(world.database.sql, {
      email: "other@example.com",
      password: "long-password",
      role: "admin",
      workspaceName: "Acme",
    });
    const other: Actor = { userId: user.id, workspaceId: world.actor.workspaceId, role: "admin" };
    // Someone else's answer, even for an admin of the same workspace: not found, nothing stored.
    const refused = await rate(other, badTurns[3]!, "good");
    expect(refused.status).toBe("not_found");
    expect(
      await world.database.db.turnOutcome.findUniqueOrThrow({ where: { turnId: badTurns[3]! } }),
    ).toMatchObject({ rating: "bad", userId: world.actor.userId });

    const theirChat = await world.database.db.chat.create({
      data: { workspaceId: world.actor.workspaceId, userId: other.userId, title: "Theirs" },
    });
    const theirTurn = await turn(other, theirChat.id);
    const { outcomeOverview, listAnsweredFeedback, listChatRatings } = await import("./index");
    const before = await outcomeOverview({
      workspaceId: world.actor.workspaceId,
      scope: { kind: "workspace" },
    });
    expect(
      (
        await rate(
          other,
          theirTurn,
          "bad",
          { comment: "private words" },
          { feedbackRefineThreshold: 0 },
        )
      ).status,
    ).toBe("rated");
    const after = await outcomeOverview({
      workspaceId: world.actor.workspaceId,
      scope: { kind: "workspace" },
    });
    expect(after.total).toBe(before.total + 1);
    expect(JSON.stringify(after)).not.toContain("private words");
    // The chat page lists only that chat's ratings; another person's refinement evidence hides text.
    expect(Object.keys(await listChatRatings(world.chatId))).not.toContain(theirTurn);
    await world.database.db.turnOutcome.update({
      where: { turnId: theirTurn },
      data: { answeredBy: refinementId },
    });
    const cited = await listAnsweredFeedback({ viewer: world.actor, refinementId });
    const theirs = cited.find((item) => item.turnId === theirTurn)!;
    expect(theirs).toMatchObject({ own: false, comment: null });
  });
});
