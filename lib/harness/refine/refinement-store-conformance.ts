import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HarnessConflictError, HarnessNotFoundError } from "../errors";
import { type Entry } from "../store";
import { type RefinementStore } from "./refinement-store";
import { type NewRefinement, type Refinement, type RefinementStatus } from "./types";

/**
 * What a conformance run needs from a backend: a fresh store in which the given workspaces
 * exist (database backends create their rows), and a way to dispose of it.
 */
export type MakeRefinementStore = (workspaceIds: readonly string[]) => Promise<{
  store: RefinementStore;
  cleanup: () => Promise<void>;
}>;

const entry: Entry = {
  kind: "memory",
  scope: "local",
  chatId: "chat-1",
  id: "deploy-day",
  title: "Deploy day",
  content: "We deploy on Fridays. ✓",
  path: "ops",
  metadata: { tags: ["ops"] },
  pinned: false,
  source: "refinement",
  version: 1,
  createdAt: "2025-01-01T00:00:00.000Z",
  updatedAt: "2025-01-01T00:00:00.000Z",
  createdBy: "u1",
  updatedBy: "u1",
};

function at(seconds: number): string {
  return new Date(Date.UTC(2025, 0, 1) + seconds * 1000).toISOString();
}

/**
 * The one test suite every `RefinementStore` implementation must pass (in-memory, Prisma on
 * SQLite, Prisma on PostgreSQL): round trips of every field, newest-first pagination,
 * filters, imported history left out by default, compare-and-swap updates and the review
 * cooldown query.
 */
export function runRefinementStoreConformance(name: string, make: MakeRefinementStore): void {
  describe(`refinement store conformance: ${name}`, () => {
    let store: RefinementStore;
    let cleanup: () => Promise<void>;
    let workspaceId: string;
    let otherWorkspaceId: string;
    let counter = 0;

    beforeEach(async () => {
      workspaceId = `ws-${globalThis.crypto.randomUUID()}`;
      otherWorkspaceId = `ws-${globalThis.crypto.randomUUID()}`;
      ({ store, cleanup } = await make([workspaceId, otherWorkspaceId]));
    });
    afterEach(async () => {
      await cleanup();
    });

    /** Sets the status alone, `updatedAt` at `second`; with `expectedStatus`, compare-and-swap. */
    function setStatus(
      id: string,
      status: RefinementStatus,
      second: number,
      options: { expectedStatus?: RefinementStatus; workspaceId?: string } = {},
    ): Promise<Refinement> {
      return store.updateRefinement({
        workspaceId: options.workspaceId ?? workspaceId,
        id,
        ...(options.expectedStatus ? { expectedStatus: options.expectedStatus } : {}),
        updatedAt: at(second),
        patch: { status },
      });
    }

    function draft(overrides: Partial<NewRefinement> = {}): NewRefinement {
      counter++;
      return {
        id: `r-${String(counter).padStart(4, "0")}-${globalThis.crypto.randomUUID().slice(0, 8)}`,
        workspaceId,
        chatId: "chat-1",
        scope: "local",
        trigger: "explicit",
        status: "applied",
        review: null,
        approval: null,
        summary: "Remember the deploy day",
        rationale: "The user said so twice",
        expectedOutcome: "No more questions about deploys",
        instructions: null,
        edits: [],
        error: null,
        harnessVersionBefore: 3,
        harnessVersionAfter: 4,
        model: "mock-model",
        usage: null,
        actorId: "u1",
        rollbackOf: null,
        outcome: null,
        createdAt: at(counter),
        ...overrides,
      };
    }

    it("round-trips every field", async () => {
      const full = draft({
        review: { shouldRefine: true, rationale: "lasting", instructions: "focus on ops" },
        approval: { decision: "approved", by: "u2", at: at(100), note: "ok" },
        instructions: "remember we deploy on Fridays",
        edits: [
          {
            proposed: {
              action: "create",
              kind: "memory",
              id: "deploy-day",
              title: "Deploy day",
              content: "We deploy on Fridays. ✓",
              reason: "stated by the user",
            },
            entryKey: "local/chat-1/memory/deploy-day",
            scope: "local",
            plannedVersion: null,
            before: null,
            after: entry,
            result: "applied",
            revisionId: "rev-1",
          },
          {
            proposed: { action: "delete", kind: "memory", id: "gone", reason: "stale" },
            entryKey: "local/chat-1/memory/gone",
            scope: "local",
            plannedVersion: 2,
            before: { ...entry, id: "gone", version: 2 },
            after: null,
            result: "failed",
            error: {
              code: "refine:changed_during_planning",
              message: "changed",
              details: { planned: 2, current: 3 },
            },
          },
        ],
        error: { code: "refine:truncated", message: "cut off" },
        usage: {
          review: { modelId: "m", inputTokens: 10, outputTokens: 2, totalTokens: 12 },
          plan: { modelId: "m", inputTokens: 100 },
        },
        rollbackOf: "r-previous",
        outcome: { verdict: "confirmed", note: "it worked", by: "u3", at: at(200) },
      });
      const created = await store.createRefinement({ refinement: full });
      const expected: Refinement = { ...full, updatedAt: full.createdAt };
      expect(created).toEqual(expected);
      expect(await store.getRefinement({ workspaceId, id: full.id })).toEqual(expected);
    });

    it("returns null for missing refinements and other workspaces' ones", async () => {
      const created = await store.createRefinement({ refinement: draft() });
      expect(await store.getRefinement({ workspaceId, id: "nope" })).toBeNull();
      expect(
        await store.getRefinement({ workspaceId: otherWorkspaceId, id: created.id }),
      ).toBeNull();
    });

    it("refuses a duplicate id", async () => {
      const first = draft();
      await store.createRefinement({ refinement: first });
      await expect(
        store.createRefinement({ refinement: { ...first, summary: "again" } }),
      ).rejects.toBeInstanceOf(HarnessConflictError);
    });

    it("lists newest first and paginates without gaps or repeats", async () => {
      const ids: string[] = [];
      for (let index = 0; index < 7; index++) {
        ids.push((await store.createRefinement({ refinement: draft() })).id);
      }
      // Two rows sharing a timestamp are ordered by id.
      const tieA = draft({ id: "tie-a", createdAt: at(1000) });
      const tieB = draft({ id: "tie-b", createdAt: at(1000) });
      await store.createRefinement({ refinement: tieA });
      await store.createRefinement({ refinement: tieB });
      await store.createRefinement({ refinement: draft({ workspaceId: otherWorkspaceId }) });

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await store.listRefinements({ workspaceId, cursor, limit: 4 });
        seen.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor;
        pages++;
      } while (cursor !== null && pages < 10);
      expect(seen).toEqual(["tie-b", "tie-a", ...ids.reverse()]);
      expect(pages).toBe(3);
    });

    it("filters by scope, trigger, status, chat, visibility, actor and rollbackOf", async () => {
      const local = await store.createRefinement({ refinement: draft() });
      const global = await store.createRefinement({
        refinement: draft({ scope: "global", chatId: "chat-2", status: "pending", actorId: "u2" }),
      });
      const automatic = await store.createRefinement({
        refinement: draft({ trigger: "every-n-turns", status: "declined", chatId: "chat-2" }),
      });
      const rollback = await store.createRefinement({
        refinement: draft({ trigger: "rollback", rollbackOf: local.id }),
      });
      const ids = async (filter: Parameters<RefinementStore["listRefinements"]>[0]["filter"]) =>
        (await store.listRefinements({ workspaceId, filter })).items.map((item) => item.id).sort();

      expect(await ids({ scope: "global" })).toEqual([global.id]);
      expect(await ids({ trigger: "every-n-turns" })).toEqual([automatic.id]);
      expect(await ids({ trigger: ["explicit", "rollback"] })).toEqual(
        [local.id, global.id, rollback.id].sort(),
      );
      expect(await ids({ status: "pending" })).toEqual([global.id]);
      expect(await ids({ status: ["pending", "declined"] })).toEqual(
        [global.id, automatic.id].sort(),
      );
      expect(await ids({ chatId: "chat-2" })).toEqual([global.id, automatic.id].sort());
      expect(await ids({ visibleToChat: "chat-1" })).toEqual(
        [local.id, global.id, rollback.id].sort(),
      );
      expect(await ids({ actorId: "u2" })).toEqual([global.id]);
      expect(await ids({ rollbackOf: local.id })).toEqual([rollback.id]);
      expect(await ids({ scope: "local", status: "applied", chatId: "chat-1" })).toEqual(
        [local.id, rollback.id].sort(),
      );
    });

    it("leaves imported history out unless asked for", async () => {
      const normal = await store.createRefinement({ refinement: draft() });
      const imported = await store.createRefinement({
        refinement: draft({
          status: "imported",
          trigger: "import",
          scope: "global",
          chatId: null,
          actorId: null,
        }),
      });
      const list = async (filter?: Parameters<RefinementStore["listRefinements"]>[0]["filter"]) =>
        (await store.listRefinements({ workspaceId, filter })).items.map((item) => item.id);
      expect(await list()).toEqual([normal.id]);
      expect(await list({ scope: "global" })).toEqual([]);
      expect(await list({ includeImported: true })).toEqual([imported.id, normal.id]);
      expect(await list({ status: "imported" })).toEqual([imported.id]);
    });

    it("updates fields, with compare-and-swap on the status", async () => {
      const pending = await store.createRefinement({
        refinement: draft({ status: "pending", scope: "global" }),
      });
      const approved = await store.updateRefinement({
        workspaceId,
        id: pending.id,
        expectedStatus: "pending",
        updatedAt: at(500),
        patch: {
          status: "applied",
          harnessVersionAfter: 9,
          approval: { decision: "approved", by: "u2", at: at(500) },
          edits: [],
        },
      });
      expect(approved.status).toBe("applied");
      expect(approved.harnessVersionAfter).toBe(9);
      expect(approved.approval).toEqual({ decision: "approved", by: "u2", at: at(500) });
      expect(approved.updatedAt).toBe(at(500));
      expect(approved.createdAt).toBe(pending.createdAt);
      expect(approved.summary).toBe(pending.summary);
      expect(await store.getRefinement({ workspaceId, id: pending.id })).toEqual(approved);

      await expect(
        setStatus(pending.id, "rejected", 501, { expectedStatus: "pending" }),
      ).rejects.toBeInstanceOf(HarnessConflictError);
      expect((await store.getRefinement({ workspaceId, id: pending.id }))?.status).toBe("applied");

      const verdict = await store.updateRefinement({
        workspaceId,
        id: pending.id,
        updatedAt: at(502),
        patch: { outcome: { verdict: "refuted", note: "no effect", by: "u3", at: at(502) } },
      });
      expect(verdict.outcome).toEqual({
        verdict: "refuted",
        note: "no effect",
        by: "u3",
        at: at(502),
      });
      expect(verdict.status).toBe("applied");

      await expect(setStatus("missing", "rejected", 503)).rejects.toBeInstanceOf(
        HarnessNotFoundError,
      );
      await expect(
        setStatus(pending.id, "rejected", 503, { workspaceId: otherWorkspaceId }),
      ).rejects.toBeInstanceOf(HarnessNotFoundError);
    });

    it("completes a queued refinement in place: queued → running → the run's outcome", async () => {
      const queued = await store.createRefinement({
        refinement: draft({ status: "queued", summary: "", model: null, usage: null }),
      });
      await setStatus(queued.id, "running", 600, { expectedStatus: "queued" });
      const outcome = {
        status: "applied",
        review: { shouldRefine: true, rationale: "worth it", instructions: "focus" },
        summary: "Added a fact",
        rationale: "because",
        expectedOutcome: "better answers",
        instructions: "focus",
        model: "m-1",
        usage: { plan: { modelId: "m-1", inputTokens: 3, outputTokens: 4 } },
      } as const;
      const done = await store.updateRefinement({
        workspaceId,
        id: queued.id,
        expectedStatus: "running",
        updatedAt: at(601),
        patch: outcome,
      });
      expect(done).toMatchObject({ ...outcome, createdAt: queued.createdAt });
      expect(await store.getRefinement({ workspaceId, id: queued.id })).toEqual(done);
      await expect(
        setStatus(queued.id, "running", 602, { expectedStatus: "queued" }),
      ).rejects.toBeInstanceOf(HarnessConflictError);
    });

    it("answers when the review gate last ran, per chat and per workspace", async () => {
      expect(await store.getLastReviewAt({ workspaceId })).toBeNull();
      await store.createRefinement({ refinement: draft({ createdAt: at(10) }) });
      expect(await store.getLastReviewAt({ workspaceId })).toBeNull();
      await store.createRefinement({
        refinement: draft({ trigger: "every-n-turns", status: "declined", createdAt: at(20) }),
      });
      await store.createRefinement({
        refinement: draft({
          trigger: "compaction",
          status: "failed",
          chatId: "chat-2",
          createdAt: at(30),
        }),
      });
      await store.createRefinement({ refinement: draft({ createdAt: at(40) }) });
      await store.createRefinement({
        refinement: draft({
          trigger: "every-n-turns",
          workspaceId: otherWorkspaceId,
          createdAt: at(50),
        }),
      });
      expect(await store.getLastReviewAt({ workspaceId, chatId: "chat-1" })).toBe(at(20));
      expect(await store.getLastReviewAt({ workspaceId, chatId: "chat-2" })).toBe(at(30));
      expect(await store.getLastReviewAt({ workspaceId, chatId: "chat-3" })).toBeNull();
      expect(await store.getLastReviewAt({ workspaceId })).toBe(at(30));
    });
  });
}
