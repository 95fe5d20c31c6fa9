import { describe, expect, it } from "vitest";
import { PRIVATE_TO_SHARED, type CommitLog } from "./commit-log";
import { createInMemorySpool, createInMemoryTurnJournal } from "./durability";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { openTurnCheckout } from "./open-turn-checkout";
import { drainSpool } from "./recovery";
import type { PersistentDir } from "./types";

// Issue 31, finding 6, in the core: a shared dir's change holding private text is never stored,
// never retried by itself, and belongs to the private dir's owner wherever it is kept.

const SECRET = "Bank login: ada.l / hunter2-correct-horse\n";

function dirs() {
  const user = createInMemoryDirBacking({ files: { "secret.md": SECRET } });
  const company = createInMemoryDirBacking({ files: { "handbook.md": "Deploy on Fridays.\n" } });
  const list: PersistentDir<unknown, unknown>[] = [
    { harnessDir: "/persistent/user", ...user, audience: "private", owner: () => "user:u1" },
    { harnessDir: "/persistent/company", ...company, audience: "shared", owner: () => "ws:w1" },
  ];
  return { user, company, list };
}

describe("a copy of private text into a shared dir", () => {
  it("is journaled as the private owner's, and a spooled one is imported without an automatic retry", async () => {
    const { company, list } = dirs();
    const journal = createInMemoryTurnJournal();
    const spool = createInMemorySpool();
    const working = createInMemoryCommitLog();
    // The commit log does not answer at commit time: the held change set goes to the spool.
    const broken: CommitLog = {
      ...working,
      appendCommit: () => Promise.reject(new Error("database away")),
    };
    const turn = await openTurnCheckout({
      dirs: list,
      extraBody: {},
      session: {},
      commitLog: broken,
      turnId: "t1",
      journal,
      spool,
      retryPolicy: { maxAttempts: 6, baseDelayMs: 1_000, maxDelayMs: 10_000 },
    });
    turn.checkout.writeFile({ path: "/persistent/company/leak.md", content: `FYI\n${SECRET}` });
    await turn.checkpoint();
    expect(journal.all().map((entry) => [entry.harnessDir, entry.owner])).toEqual([
      ["/persistent/company", "user:u1"],
    ]);

    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence.status).toBe("failed");
    const [held] = persistence.status === "failed" ? persistence.failedCommits : [];
    expect(held).toMatchObject({
      harnessDir: "/persistent/company",
      status: "failed",
      awaitsConfirmation: true,
      spooled: true,
      error: { code: PRIVATE_TO_SHARED },
    });
    expect(held!.retrying).toBeUndefined();
    expect((await company.load({ extraBody: {}, session: {} })).files).not.toHaveProperty(
      "leak.md",
    );

    await drainSpool({ spool, commitLog: working, journal });
    const [record] = (await working.listCommits({})).commits;
    expect(record).toMatchObject({
      owner: "user:u1",
      status: "failed",
      nextAttemptAt: null,
      error: { code: PRIVATE_TO_SHARED },
    });
  });

  it("commits a private dir's own change and a shared change without private text", async () => {
    const { user, company, list } = dirs();
    const turn = await openTurnCheckout({
      dirs: list,
      extraBody: {},
      session: {},
      commitLog: createInMemoryCommitLog(),
    });
    turn.checkout.writeFile({ path: "/persistent/user/more.md", content: `${SECRET}More.\n` });
    turn.checkout.writeFile({
      path: "/persistent/company/handbook.md",
      content: "Deploy on Fridays.\nAnd on Tuesdays when the release train runs late.\n",
    });
    expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
    expect((await user.load({ extraBody: {}, session: {} })).files["more.md"]).toBe(
      `${SECRET}More.\n`,
    );
    expect((await company.load({ extraBody: {}, session: {} })).files["handbook.md"]).toContain(
      "Tuesdays",
    );
  });
});
