import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import nodePath from "node:path";

import { describe, expect, it } from "vitest";

import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { runContendedTurns, seededRandom, sharedFile, sleep } from "./internal/testing";
import { localDir } from "./local-dir";
import { resolveConflict, retryCommit } from "./retry-commit";
import type { PersistentDir, PersistentDirBacking } from "./types";

const harnessDir = "/persistent/user";

async function runConcurrentTurns(options: {
  turns: number;
  backing: PersistentDirBacking;
  seed: number;
}) {
  const random = seededRandom(options.seed);
  const jitter = () => sleep(Math.floor(random() * 4));
  const dirs: PersistentDir[] = [
    {
      harnessDir,
      load: async (loadOptions) => {
        await jitter();
        return options.backing.load(loadOptions);
      },
      store: async (storeOptions) => {
        await jitter();
        return options.backing.store(storeOptions);
      },
    },
  ];
  const commitLog = createInMemoryCommitLog();
  const { results, titles } = await runContendedTurns({
    dirs,
    extraBody: { userId: "u1" },
    commitLog,
    harnessDir,
    turns: options.turns,
    jitter,
  });

  const commits = results
    .map((result) => (result.status === "not-configured" ? [] : result.commits))
    .flat();
  const succeeded = commits.filter((commit) => commit.status === "succeeded");
  const unsettled = commits.filter(
    (commit) => commit.status === "conflict" || commit.status === "failed",
  );
  // Each turn either committed (directly or merged) or left a durable record.
  expect(succeeded.length + unsettled.length).toBe(options.turns);
  expect(unsettled.every((commit) => commit.commitId !== undefined)).toBe(true);
  const openRecords = (await commitLog.listCommits({ status: "open", limit: 1000 })).commits;
  expect(openRecords.map((record) => record.id).sort()).toEqual(
    unsettled.map((commit) => commit.commitId).sort(),
  );

  // A person (or the retry queue) settles what is left: retry, and keep the current title on a clash.
  for (let round = 0; round < 10; round += 1) {
    const open = (await commitLog.listCommits({ status: "open", limit: 1000 })).commits.reverse();
    if (open.length === 0) break;
    for (const record of open) {
      const retried = await retryCommit({ id: record.id, dirs, commitLog });
      if (retried.status === "conflict" && retried.record.conflicts.length > 0) {
        expect(retried.record.conflicts.map((conflict) => conflict.path)).toEqual(["title.md"]);
        await resolveConflict({ id: record.id, dirs, commitLog, resolution: "theirs" });
      }
    }
  }
  expect((await commitLog.listCommits({ status: "open" })).commits).toEqual([]);

  const final = await options.backing.load({ extraBody: {}, session: {} });
  expect(final.files["shared.md"]).toBe(
    sharedFile(options.turns, (slot) => `slot ${slot}: edited by turn ${slot}`),
  );
  expect(titles.has(final.files["title.md"] as string)).toBe(true);
  return {
    succeeded: succeeded.length,
    merged: succeeded.filter((commit) => commit.merged).length,
    recorded: unsettled.length,
  };
}

describe("concurrency: turns of one user editing the same files", () => {
  it("loses no update across 50 concurrent turns (in-memory backing)", async () => {
    const backing = createInMemoryDirBacking({
      files: { "shared.md": sharedFile(50, () => null), "title.md": "title: original\n" },
    });
    const outcome = await runConcurrentTurns({ turns: 50, backing, seed: 50 });
    expect(outcome.merged).toBeGreaterThan(0);
    expect(outcome.recorded).toBeGreaterThan(0);
  });

  it("loses no update across 20 concurrent turns (local folder backing)", async () => {
    const folder = await mkdtemp(nodePath.join(tmpdir(), "cairn-concurrency-"));
    try {
      const seedDir = localDir({ harnessDir, sourceDir: folder });
      const empty = await seedDir.load({ extraBody: {}, session: {} });
      await seedDir.store!({
        extraBody: {},
        session: {},
        harnessDir,
        cursor: empty.cursor,
        changes: {
          created: [
            { path: "shared.md", content: sharedFile(20, () => null) },
            { path: "title.md", content: "title: original\n" },
          ],
          updated: [],
          deleted: [],
        },
        snapshot: {},
      });
      const backing = { load: seedDir.load, store: seedDir.store! };
      await runConcurrentTurns({ turns: 20, backing, seed: 20 });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
