import { describe, expect, it, vi } from "vitest";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { openTurnCheckout } from "./open-turn-checkout";
import type { PersistentDir, SuggestOptions } from "./types";
import { runMemoryCommand } from "../turn/memory-tool";

// Issue 27, item 1, in the core: a dir this turn may not write but which takes suggestions is
// written in the checkout, and its change set goes to `suggest` — never to `store`.

const POLICY = "# Travel\nReceipts within 30 days.\n";

function companyDir(suggest: PersistentDir["suggest"]) {
  const backing = createInMemoryDirBacking({ files: { "travel.md": POLICY } });
  const store = vi.fn(backing.store);
  const dir: PersistentDir = {
    harnessDir: "/persistent/company",
    ...backing,
    store,
    canWrite: () => false,
    owner: () => "workspace:w1",
    suggest,
  };
  return { dir, backing, store };
}

describe("a dir that takes suggestions", () => {
  it("lets the turn write, tells the model 'suggested for review', and hands the change set and its base to suggest", async () => {
    const calls: SuggestOptions[] = [];
    const { dir, backing, store } = companyDir(async (options) => {
      calls.push(options);
      return { id: "s-1" };
    });
    const commitLog = createInMemoryCommitLog();
    const turn = await openTurnCheckout({
      dirs: [dir],
      extraBody: { who: "member" },
      session: { chatId: "c1" },
      commitLog,
      turnId: "t1",
    });
    const result = await runMemoryCommand(turn.checkout, {
      command: "str_replace",
      path: "/persistent/company/travel.md",
      old_str: "30 days",
      new_str: "60 days",
    });
    expect(result).toContain("suggested for review");
    // The agent reads its own change this turn.
    expect(await turn.checkout.readFile({ path: "/persistent/company/travel.md" })).toContain(
      "60 days",
    );
    const persistence = await turn.finishTurn({ status: "completed", note: "finance said so" });
    expect(persistence).toMatchObject({
      status: "succeeded",
      commits: [{ status: "suggested", suggestionId: "s-1", changes: { updated: ["travel.md"] } }],
    });
    expect(store).not.toHaveBeenCalled();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      harnessDir: "/persistent/company",
      turnId: "t1",
      note: "finance said so",
      extraBody: { who: "member" },
      session: { chatId: "c1" },
      base: { "travel.md": POLICY },
      changes: {
        created: [],
        updated: [{ path: "travel.md", content: POLICY.replace("30", "60") }],
        deleted: [],
      },
    });
    const loaded = await backing.load({ extraBody: {}, session: {} });
    expect(loaded.files["travel.md"]).toBe(POLICY);
  });

  it("keeps the change set in the commit log, held and not retried, when suggest fails", async () => {
    const { dir, store } = companyDir(() => Promise.reject(new Error("database away")));
    const commitLog = createInMemoryCommitLog();
    const onPersistenceError = vi.fn();
    const turn = await openTurnCheckout({
      dirs: [dir],
      extraBody: {},
      session: {},
      commitLog,
      turnId: "t2",
      retryPolicy: { maxAttempts: 6, baseDelayMs: 1_000, maxDelayMs: 10_000 },
      onPersistenceError,
    });
    turn.checkout.writeFile({ path: "/persistent/company/new.md", content: "hello\n" });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");
    const [kept] = persistence.status === "failed" ? persistence.failedCommits : [];
    expect(kept).toMatchObject({ status: "failed", error: { code: "failed:suggestion" } });
    expect(kept!.awaitsConfirmation).toBeUndefined();
    expect(kept!.retrying).toBeUndefined();
    const record = await commitLog.getCommit({ id: kept!.commitId! });
    expect(record).toMatchObject({ status: "failed", nextAttemptAt: null, owner: "workspace:w1" });
    expect(record!.changes.created).toEqual([{ path: "new.md", content: "hello\n" }]);
    expect(store).not.toHaveBeenCalled();
    expect(onPersistenceError).toHaveBeenCalledTimes(1);
  });

  it("stays read-only when it offers no suggest", async () => {
    const { dir } = companyDir(undefined);
    const turn = await openTurnCheckout({
      dirs: [{ ...dir, suggest: undefined }],
      extraBody: {},
      session: {},
      commitLog: createInMemoryCommitLog(),
    });
    expect(() =>
      turn.checkout.writeFile({ path: "/persistent/company/x.md", content: "no" }),
    ).toThrow(/not permitted for this turn/);
  });
});
