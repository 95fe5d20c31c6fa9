import { describe, expect, it } from "vitest";

import { HarnessValidationError } from "../errors";
import { createInMemorySpool, createInMemoryTurnJournal } from "./durability";
import { FailedCommitsQuotaError } from "./failed-commits-quota-error";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { openTurnCheckout } from "./open-turn-checkout";
import type { PersistentDir } from "./types";

// Decision 0030, "Commit failures have a bound": a refusal that would repeat is kept in the
// commit log only while its owner's open records hold less than the log's bound; past it the
// turn reports it not kept, and neither the spool nor the journal keep it behind the bound's back.
// Transient failures are kept whatever the bound.

const extraBody = { userId: "u1" };
const FILE = "x".repeat(10_000);

function refusingDir(refuse: () => Error): PersistentDir<typeof extraBody> {
  const backing = createInMemoryDirBacking();
  return {
    harnessDir: "/persistent/user",
    load: backing.load,
    store: async () => {
      throw refuse();
    },
    owner: ({ extraBody }) => `user:${extraBody.userId}`,
  };
}

const quotaRefusal = () =>
  new HarnessValidationError({
    surface: "dir",
    message: "The history of /persistent/user is full.",
  });

describe("the commit log's bound on a turn's refused commits", () => {
  it("keeps refusals until the bound, then reports them not kept: no record, no spool, no journal", async () => {
    const commitLog = createInMemoryCommitLog({ maxOwnerBytes: 45_000 });
    const journal = createInMemoryTurnJournal();
    const spool = createInMemorySpool();
    const results = [];
    for (let index = 0; index < 6; index += 1) {
      const turn = await openTurnCheckout({
        dirs: [refusingDir(quotaRefusal)],
        extraBody,
        session: null,
        commitLog,
        journal,
        spool,
        turnId: `t${index}`,
        retryPolicy: { maxAttempts: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 },
      });
      turn.checkout.writeFile({ path: `/persistent/user/f${index}.md`, content: FILE });
      await turn.checkpoint();
      const persistence = await turn.finishTurn({ status: "completed" });
      if (persistence.status !== "failed") throw new Error("expected a failed commit");
      results.push(persistence.failedCommits[0]!);
    }
    // ~10 KB each: four fit in 45,000 bytes.
    expect(results.slice(0, 4).every((commit) => commit.commitId !== undefined)).toBe(true);
    for (const commit of results.slice(4)) {
      expect(commit).toMatchObject({ status: "failed", notKept: true });
      expect(commit.commitId).toBeUndefined();
      expect(commit.unrecorded).toBeUndefined();
      expect(commit.spooled).toBeUndefined();
      expect(commit.retrying).toBeUndefined();
      expect(commit.error?.code).toBe("validation:dir");
      expect(commit.error?.message).toMatch(
        /^The history of \/persistent\/user is full\. This change was not kept: the open commit records of user:u1 already hold/,
      );
    }
    expect(commitLog.all()).toHaveLength(4);
    expect(await spool.list()).toEqual([]);
    expect(journal.all()).toEqual([]);
  });

  it("keeps transient failures past the bound, and resolving a record makes room again", async () => {
    const commitLog = createInMemoryCommitLog({ maxOwnerBytes: 25_000 });
    const commit = async (refuse: () => Error) => {
      const turn = await openTurnCheckout({
        dirs: [refusingDir(refuse)],
        extraBody,
        session: null,
        commitLog,
      });
      turn.checkout.writeFile({ path: "/persistent/user/a.md", content: FILE });
      const persistence = await turn.finishTurn({ status: "completed" });
      if (persistence.status !== "failed") throw new Error("expected a failed commit");
      return persistence.failedCommits[0]!;
    };
    expect((await commit(quotaRefusal)).commitId).toBeDefined();
    expect((await commit(quotaRefusal)).commitId).toBeDefined();
    expect((await commit(quotaRefusal)).notKept).toBe(true);
    // A store that failed for another reason (the database went away) is always kept.
    for (let index = 0; index < 3; index += 1) {
      const transient = await commit(() => new Error("connection reset"));
      expect(transient.commitId).toBeDefined();
      expect(transient.notKept).toBeUndefined();
    }
    expect(commitLog.all()).toHaveLength(5);
    for (const record of commitLog.all())
      await commitLog.markResolved({ id: record.id, resolution: "discarded" });
    expect((await commit(quotaRefusal)).commitId).toBeDefined();
  });

  it("the in-memory log declines only bounded appends, with the owner's figures", async () => {
    const commitLog = createInMemoryCommitLog({ maxOwnerBytes: 100 });
    const record = {
      harnessDir: "/persistent/user",
      mode: "after-turn" as const,
      status: "failed" as const,
      owner: "user:u1",
      changes: { created: [{ path: "a.md", content: "y".repeat(200) }], updated: [], deleted: [] },
      baseCursor: 0,
      base: {},
      extraBody: null,
      session: null,
      error: null,
      conflicts: [],
      attempts: 1,
    };
    const declined = await commitLog
      .appendCommit({ commit: record, bounded: true })
      .catch((error: unknown) => error);
    expect(FailedCommitsQuotaError.isInstance(declined)).toBe(true);
    expect(HarnessValidationError.isInstance(declined)).toBe(true);
    expect((declined as FailedCommitsQuotaError).details).toMatchObject({
      owner: "user:u1",
      limitBytes: 100,
      usedBytes: 0,
    });
    await commitLog.appendCommit({ commit: record });
    await commitLog.appendCommit({ commit: { ...record, owner: null }, bounded: true });
    expect(commitLog.all()).toHaveLength(2);
  });
});
