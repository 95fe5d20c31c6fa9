// Over 500 lines, knowingly: one case per commit mode and failure path of one module, sharing
// its fixtures.
import { Readable } from "node:stream";
import { describe, expect, it, vi } from "vitest";

import { HarnessConflictError, HarnessForbiddenError } from "../errors";
import type { CommitLog } from "./commit-log";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking, type InMemoryDirBacking } from "./in-memory-dir-backing";
import { steppingClock } from "./internal/testing";
import { openTurnCheckout, type PersistenceErrorEvent } from "./open-turn-checkout";
import { resolveConflict, retryCommit } from "./retry-commit";
import type { PersistentDir, PersistentDirTraceEvent, StoreOptions } from "./types";

const context = {
  extraBody: { userId: "u1", workspaceId: "w1", role: "member" },
  session: { chatId: "c1" },
};

function dirOf(
  harnessDir: string,
  backing: InMemoryDirBacking,
  extra: Partial<PersistentDir> = {},
): PersistentDir {
  return { harnessDir, load: backing.load, store: backing.store, ...extra };
}

describe("openTurnCheckout / finishTurn", () => {
  it("load → edit → diff → store receives exactly the changes, snapshot and base cursor", async () => {
    const backing = createInMemoryDirBacking({
      files: { "keep.md": "same", "edit.md": "old", "gone.md": "bye" },
    });
    const trace: PersistentDirTraceEvent[] = [];
    const turn = await openTurnCheckout({
      dirs: [dirOf("/persistent/user", backing)],
      ...context,
      commitLog: createInMemoryCommitLog(),
      clock: steppingClock(),
      onTrace: (event) => trace.push(event),
    });
    turn.checkout.writeFile({ path: "/persistent/user/edit.md", content: "new" });
    turn.checkout.writeFile({ path: "/persistent/user/notes/new.md", content: "hello" });
    turn.checkout.deleteFile({ path: "/persistent/user/gone.md" });

    const persistence = await turn.finishTurn({ status: "completed" });

    expect(backing.storeCalls).toHaveLength(1);
    expect(backing.storeCalls[0]).toEqual({
      ...context,
      harnessDir: "/persistent/user",
      cursor: 0,
      changes: {
        created: [{ path: "notes/new.md", content: "hello" }],
        updated: [{ path: "edit.md", content: "new" }],
        deleted: ["gone.md"],
      },
      snapshot: { "keep.md": "same", "edit.md": "new", "notes/new.md": "hello" },
    } satisfies Omit<StoreOptions, "abortSignal">);
    expect(backing.files()).toEqual({
      "keep.md": "same",
      "edit.md": "new",
      "notes/new.md": "hello",
    });
    expect(persistence).toEqual({
      status: "succeeded",
      commits: [
        {
          harnessDir: "/persistent/user",
          mode: "after-turn",
          status: "succeeded",
          cursor: 1,
          merged: false,
          changes: {
            created: ["notes/new.md"],
            updated: ["edit.md"],
            deleted: ["gone.md"],
            counts: { created: 1, updated: 1, deleted: 1, total: 3 },
          },
        },
      ],
    });
    expect(trace.map((event) => event.type)).toEqual([
      "dir.loaded",
      "commit.started",
      "commit.succeeded",
    ]);
    expect(trace[0]).toMatchObject({
      harnessDir: "/persistent/user",
      fileCount: 3,
      bytes: 10,
      readOnly: false,
    });
    expect(turn.trace).toEqual(trace);
  });

  it("skips an empty change set without calling store", async () => {
    const backing = createInMemoryDirBacking({ files: { "a.md": "a" } });
    const turn = await openTurnCheckout({
      dirs: [dirOf("/persistent/user", backing)],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    await turn.checkout.readFile({ path: "/persistent/user/a.md" });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(backing.storeCalls).toHaveLength(0);
    expect(persistence).toMatchObject({
      status: "succeeded",
      commits: [{ status: "skipped", skipReason: "no-changes" }],
    });
    expect(turn.trace.map((event) => event.type)).toEqual(["dir.loaded"]);
  });

  it("reports not-configured without dirs", async () => {
    const turn = await openTurnCheckout({
      dirs: [],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    expect(await turn.finishTurn({ status: "completed" })).toEqual({ status: "not-configured" });
  });

  it("never calls store for read-only and canWrite:false dirs, and rejects their writes", async () => {
    const company = createInMemoryDirBacking({ files: { "policy.md": "v1" } });
    const shared = createInMemoryDirBacking({ files: { "doc.md": "v1" } });
    const companyStore = vi.fn(company.store);
    const sharedStore = vi.fn(shared.store);
    const turn = await openTurnCheckout({
      dirs: [
        dirOf("/persistent/company", company, { commit: "read-only", store: companyStore }),
        dirOf("/persistent/shared", shared, { store: sharedStore, canWrite: () => false }),
      ],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    expect(() =>
      turn.checkout.writeFile({ path: "/persistent/company/policy.md", content: "v2" }),
    ).toThrowError(HarnessForbiddenError);
    await expect(turn.files.write("/persistent/shared/doc.md", "v2")).rejects.toThrowError(
      HarnessForbiddenError,
    );
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(companyStore).not.toHaveBeenCalled();
    expect(sharedStore).not.toHaveBeenCalled();
    expect(persistence).toMatchObject({
      status: "succeeded",
      commits: [
        { status: "skipped", skipReason: "read-only" },
        { status: "skipped", skipReason: "read-only" },
      ],
    });
    expect(
      turn.trace
        .filter((event) => event.type === "dir.loaded")
        .map((event) => event.type === "dir.loaded" && event.readOnly),
    ).toEqual([true, true]);
  });

  it("a throwing store fails that dir only, keeps the change set, and a retry succeeds", async () => {
    const user = createInMemoryDirBacking({ files: { "a.md": "one" } });
    const other = createInMemoryDirBacking();
    let broken = true;
    const store = vi.fn(async (options: StoreOptions) => {
      if (broken) throw new Error("database unavailable");
      return user.store(options);
    });
    const commitLog = createInMemoryCommitLog({ clock: steppingClock() });
    const errors: PersistenceErrorEvent[] = [];
    const dirs = [
      dirOf("/persistent/user", user, {
        store,
        owner: ({ extraBody }) => (extraBody as { userId: string }).userId,
      }),
      dirOf("/persistent/other", other),
    ];
    const turn = await openTurnCheckout({
      dirs,
      ...context,
      commitLog,
      onPersistenceError: (event) => {
        errors.push(event);
      },
    });
    turn.checkout.writeFile({ path: "/persistent/user/a.md", content: "two" });
    turn.checkout.writeFile({ path: "/persistent/other/b.md", content: "b" });

    const persistence = await turn.finishTurn({ status: "completed" });

    expect(persistence.status).toBe("failed");
    if (persistence.status !== "failed") return;
    expect(persistence.commits.map((commit) => [commit.harnessDir, commit.status])).toEqual([
      ["/persistent/user", "failed"],
      ["/persistent/other", "succeeded"],
    ]);
    expect(persistence.failedCommits).toEqual([
      expect.objectContaining({
        harnessDir: "/persistent/user",
        status: "failed",
        error: { code: "failed:store", message: "database unavailable" },
        commitId: "commit-1",
      }),
    ]);
    expect(other.files()).toEqual({ "b.md": "b" });
    expect(user.files()).toEqual({ "a.md": "one" });
    expect(turn.trace.map((event) => event.type)).toEqual([
      "dir.loaded",
      "dir.loaded",
      "commit.started",
      "commit.started",
      "commit.succeeded",
      "commit.failed",
    ]);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.record).toMatchObject({
      id: "commit-1",
      owner: "u1",
      status: "failed",
      baseCursor: 0,
      base: { "a.md": "one" },
      changes: { created: [], updated: [{ path: "a.md", content: "two" }], deleted: [] },
    });

    broken = false;
    const retried = await retryCommit({ id: "commit-1", dirs, commitLog });
    expect(retried).toMatchObject({
      status: "succeeded",
      record: { status: "resolved", resolution: "retried" },
    });
    expect(user.files()).toEqual({ "a.md": "two" });
    expect(store).toHaveBeenCalledTimes(2);
    expect(store.mock.calls[1]![0]).toMatchObject({
      extraBody: context.extraBody,
      session: context.session,
    });
    await expect(retryCommit({ id: "commit-1", dirs, commitLog })).rejects.toThrowError(
      HarnessConflictError,
    );
  });

  it("commits manual dirs only via commitManual(), once, including host-staged writes", async () => {
    const uploads = createInMemoryDirBacking();
    const user = createInMemoryDirBacking();
    const turn = await openTurnCheckout({
      dirs: [
        dirOf("/persistent/uploads", uploads, { commit: "manual" }),
        dirOf("/persistent/user", user),
      ],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    await expect(turn.commitManual()).rejects.toThrowError(/only after finishTurn/);
    turn.checkout.writeFile({ path: "/persistent/uploads/by-agent.md", content: "agent" });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence).toMatchObject({
      status: "succeeded",
      commits: [{ harnessDir: "/persistent/user", status: "skipped" }],
    });
    expect(persistence.status === "succeeded" && persistence.commits).toHaveLength(1);
    expect(uploads.storeCalls).toHaveLength(0);

    await turn.files.write("/persistent/uploads/report.txt", "host");
    await turn.files.write("/persistent/user/host-only.md", "lost by design");
    const manual = await turn.commitManual();
    expect(manual).toMatchObject({
      status: "succeeded",
      commits: [{ harnessDir: "/persistent/uploads", mode: "manual", status: "succeeded" }],
    });
    expect(uploads.files()).toEqual({ "by-agent.md": "agent", "report.txt": "host" });
    expect(user.storeCalls).toHaveLength(0);
    await expect(turn.commitManual()).rejects.toThrowError(/already called/);
    await expect(turn.finishTurn({ status: "completed" })).rejects.toThrowError(/already called/);
  });

  it("discards host writes into an after-turn dir at the next turn start", async () => {
    const user = createInMemoryDirBacking({ files: { "a.md": "a" } });
    const commitLog = createInMemoryCommitLog();
    const dirs = [dirOf("/persistent/user", user)];
    const first = await openTurnCheckout({ dirs, ...context, commitLog });
    await first.finishTurn({ status: "completed" });
    await first.files.write("/persistent/user/staged.md", "host write");
    expect(await first.files.read("/persistent/user/staged.md")).toBe("host write");

    const second = await openTurnCheckout({ dirs, ...context, commitLog });
    expect(await second.checkout.readFile({ path: "/persistent/user/staged.md" })).toBeNull();
    expect(await second.finishTurn({ status: "completed" })).toMatchObject({
      commits: [{ status: "skipped" }],
    });
    expect(user.files()).toEqual({ "a.md": "a" });
    expect(user.storeCalls).toHaveLength(0);
  });

  it("orders host writes against commits: a commit waits for earlier writes, later writes land after it", async () => {
    const user = createInMemoryDirBacking();
    const uploads = createInMemoryDirBacking();
    const turn = await openTurnCheckout({
      dirs: [
        dirOf("/persistent/user", user),
        dirOf("/persistent/uploads", uploads, { commit: "manual" }),
      ],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    // A slow upload: its stream finishes only when we say so.
    let finishUpload!: () => void;
    const gate = new Promise<void>((resolve) => (finishUpload = resolve));
    const slow = turn.files.write(
      "/persistent/user/slow.md",
      (async function* () {
        yield "first half, ";
        await gate;
        yield "second half";
      })(),
    );
    const finishing = turn.finishTurn({ status: "completed" });
    // Started after finishTurn(): must not slip into the after-turn commit.
    const late = turn.files.write("/persistent/user/late.md", "late");
    const manual = turn.files.write("/persistent/uploads/u.txt", "upload");
    finishUpload();
    const persistence = await finishing;
    expect(persistence).toMatchObject({
      commits: [
        { harnessDir: "/persistent/user", status: "succeeded", changes: { created: ["slow.md"] } },
      ],
    });
    expect(await slow).toMatchObject({ commit: "after-turn", bytes: 23 });
    expect(await late).toMatchObject({ commit: "none" });
    expect(await manual).toMatchObject({ commit: "manual" });
    expect(user.files()).toEqual({ "slow.md": "first half, second half" });
    await turn.commitManual();
    expect(uploads.files()).toEqual({ "u.txt": "upload" });
    expect(await turn.files.write("/persistent/uploads/after.txt", "x")).toMatchObject({
      commit: "none",
    });
    expect(turn.trace.filter((event) => event.type === "host.write")).toHaveLength(4);
  });

  it("reads host content from web streams, Node streams and async iterables, bytes and text mixed", async () => {
    const user = createInMemoryDirBacking();
    const turn = await openTurnCheckout({
      dirs: [dirOf("/persistent/user", user, { limits: { maxFileBytes: 16 } })],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    await turn.files.write("/persistent/user/node.txt", Readable.from(["node ", "stream"]));
    await turn.files.write(
      "/persistent/user/mixed.bin",
      (async function* () {
        yield "ab";
        yield new Uint8Array([0, 255]);
      })(),
    );
    await turn.files.write(
      "/persistent/user/empty.txt",
      new ReadableStream<string>({ start: (c) => c.close() }),
    );
    expect(await turn.files.read("/persistent/user/node.txt")).toBe("node stream");
    expect(await turn.files.read("/persistent/user/mixed.bin")).toEqual(
      new Uint8Array([97, 98, 0, 255]),
    );
    expect(await turn.files.read("/persistent/user/empty.txt")).toBe("");
    await expect(
      turn.files.write(
        "/persistent/user/bad.txt",
        (async function* () {
          yield 42 as unknown as string;
        })(),
      ),
    ).rejects.toThrowError(/neither a string nor a Uint8Array/);
    await expect(
      turn.files.write("/persistent/user/bad.txt", { not: "content" } as never),
    ).rejects.toThrowError(/must be a string, a Uint8Array, a ReadableStream or an async iterable/);
    await expect(
      turn.files.write("/persistent/user/big.txt", Readable.from(["0123456789", "0123456789"])),
    ).rejects.toThrowError(/larger than 16 B/);
    expect(await turn.files.read("/persistent/user/bad.txt")).toBeNull();
    expect(await turn.files.read("/persistent/user/big.txt")).toBeNull();
    await expect(turn.files.delete("/persistent/user/node.txt")).resolves.toMatchObject({
      bytes: 0,
    });
    expect(turn.trace.map((event) => event.type)).toEqual([
      "dir.loaded",
      "host.write",
      "host.write",
      "host.write",
      "host.refused",
      "host.refused",
      "host.refused",
      "host.delete",
    ]);
  });

  it("stores nothing for an aborted or failed turn", async () => {
    const user = createInMemoryDirBacking();
    for (const status of ["aborted", "failed"] as const) {
      const turn = await openTurnCheckout({
        dirs: [dirOf("/persistent/user", user)],
        ...context,
        commitLog: createInMemoryCommitLog(),
      });
      turn.checkout.writeFile({ path: "/persistent/user/partial.md", content: "half" });
      expect(await turn.finishTurn({ status })).toMatchObject({
        status: "succeeded",
        commits: [
          {
            status: "skipped",
            skipReason: "turn-not-completed",
            changes: { created: ["partial.md"] },
          },
        ],
      });
      await expect(turn.commitManual()).rejects.toThrowError(HarnessConflictError);
    }
    expect(user.storeCalls).toHaveLength(0);
  });

  it("merges cleanly with a concurrent change to other lines", async () => {
    const user = createInMemoryDirBacking({ files: { "notes.md": "title\n\nline a\n\nline b\n" } });
    const turn = await openTurnCheckout({
      dirs: [dirOf("/persistent/user", user)],
      ...context,
      commitLog: createInMemoryCommitLog(),
    });
    turn.checkout.writeFile({
      path: "/persistent/user/notes.md",
      content: "title\n\nline a (ours)\n\nline b\n",
    });
    user.writeExternally({
      files: { "notes.md": "title\n\nline a\n\nline b (theirs)\n", "theirs.md": "t" },
    });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence).toMatchObject({
      status: "succeeded",
      commits: [{ status: "succeeded", merged: true }],
    });
    expect(user.files()).toEqual({
      "notes.md": "title\n\nline a (ours)\n\nline b (theirs)\n",
      "theirs.md": "t",
    });
  });

  it("records an unmergeable conflict with both versions, and a person resolves it", async () => {
    const user = createInMemoryDirBacking({ files: { "notes.md": "v1\n", "other.md": "o" } });
    const commitLog = createInMemoryCommitLog();
    const dirs = [dirOf("/persistent/user", user)];
    const open = async (ours = "ours\n") => {
      const turn = await openTurnCheckout({ dirs, ...context, commitLog });
      turn.checkout.writeFile({ path: "/persistent/user/notes.md", content: ours });
      turn.checkout.writeFile({ path: "/persistent/user/extra.md", content: "clean change" });
      return turn;
    };
    const turn = await open();
    user.writeExternally({ files: { "notes.md": "theirs\n" } });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence).toMatchObject({
      status: "failed",
      failedCommits: [{ status: "conflict", commitId: "commit-1" }],
    });
    expect(turn.trace.at(-1)).toMatchObject({
      type: "commit.conflict",
      conflictedPaths: ["notes.md"],
      commitId: "commit-1",
    });
    const record = (await commitLog.getCommit({ id: "commit-1" }))!;
    expect(record.conflicts).toEqual([
      {
        path: "notes.md",
        reason: "both-modified",
        base: "v1\n",
        ours: "ours\n",
        theirs: "theirs\n",
        markers: "<<<<<<< ours\nours\n||||||| base\nv1\n=======\ntheirs\n>>>>>>> theirs\n",
      },
    ]);
    expect(user.files()).toEqual({ "notes.md": "theirs\n", "other.md": "o" });

    // A plain retry still conflicts and keeps the record open.
    expect(await retryCommit({ id: "commit-1", dirs, commitLog })).toMatchObject({
      status: "conflict",
      record: { status: "conflict", attempts: 2 },
    });
    const resolved = await resolveConflict({
      id: "commit-1",
      dirs,
      commitLog,
      resolution: "theirs",
    });
    expect(resolved).toMatchObject({
      status: "succeeded",
      record: { status: "resolved", resolution: "theirs" },
    });
    expect(user.files()).toEqual({
      "notes.md": "theirs\n",
      "other.md": "o",
      "extra.md": "clean change",
    });

    const second = await open("ours 2\n");
    user.writeExternally({ files: { "notes.md": "theirs again\n" } });
    await second.finishTurn({ status: "completed" });
    await resolveConflict({ id: "commit-2", dirs, commitLog, resolution: "ours" });
    expect(user.files()["notes.md"]).toBe("ours 2\n");

    const third = await open("ours 3\n");
    user.writeExternally({ files: { "notes.md": "yet another\n" } });
    await third.finishTurn({ status: "completed" });
    await expect(
      resolveConflict({ id: "commit-3", dirs, commitLog, resolution: {} }),
    ).rejects.toThrowError(/does not settle/);
    await expect(
      resolveConflict({
        id: "commit-3",
        dirs,
        commitLog,
        resolution: { "notes.md": "x", "unrelated.md": "y" },
      }),
    ).rejects.toThrowError(/not part of commit/);
    await resolveConflict({
      id: "commit-3",
      dirs,
      commitLog,
      resolution: { "notes.md": "hand merged\n" },
    });
    expect(user.files()["notes.md"]).toBe("hand merged\n");
    expect((await commitLog.listCommits({ status: "open" })).commits).toEqual([]);
  });

  it("keeps the change set on the result when the commit log itself fails", async () => {
    const user = createInMemoryDirBacking();
    const failingLog: CommitLog = {
      ...createInMemoryCommitLog(),
      appendCommit: async () => {
        throw new Error("log down");
      },
    };
    const turn = await openTurnCheckout({
      dirs: [
        dirOf("/persistent/user", user, {
          store: async () => {
            throw new Error("store down");
          },
        }),
      ],
      ...context,
      commitLog: failingLog,
    });
    turn.checkout.writeFile({ path: "/persistent/user/a.md", content: "a" });
    const persistence = await turn.finishTurn({ status: "completed" });
    expect(persistence).toMatchObject({
      status: "failed",
      failedCommits: [
        {
          status: "failed",
          error: { message: "store down (and the commit log failed: log down)" },
          unrecorded: { baseCursor: 0, changes: { created: [{ path: "a.md", content: "a" }] } },
        },
      ],
    });
  });

  it("refuses retries the caller may not write, and unknown records", async () => {
    const user = createInMemoryDirBacking();
    const commitLog = createInMemoryCommitLog();
    let failing = true;
    const dirs: PersistentDir<{ role: string }>[] = [
      {
        harnessDir: "/persistent/company",
        load: user.load,
        store: async (options) => {
          if (failing) throw new Error("down");
          return user.store(options);
        },
        canWrite: ({ extraBody }) => extraBody.role !== "member",
      },
    ];
    const turn = await openTurnCheckout({
      dirs,
      extraBody: { role: "editor" },
      session: null,
      commitLog,
    });
    turn.checkout.writeFile({ path: "/persistent/company/a.md", content: "a" });
    await turn.finishTurn({ status: "completed" });
    failing = false;
    await expect(
      retryCommit({ id: "commit-1", dirs, commitLog, extraBody: { role: "member" } }),
    ).rejects.toThrowError(HarnessForbiddenError);
    await expect(retryCommit({ id: "nope", dirs, commitLog })).rejects.toThrowError(
      /No commit record/,
    );
    await expect(retryCommit({ id: "commit-1", dirs: [], commitLog })).rejects.toThrowError(
      /No persistent dir/,
    );
    expect(await retryCommit({ id: "commit-1", dirs, commitLog })).toMatchObject({
      status: "succeeded",
    });
  });
});
