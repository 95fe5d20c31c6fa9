import { randomUUID } from "node:crypto";

import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import {
  openTurnCheckout,
  resolveConflict,
  retryCommit,
  type PersistentDir,
  type StoreOptions,
} from "@/lib/harness";
import {
  flakyStore,
  runContendedTurns,
  runDirBackingConformance,
  seededRandom,
  sharedFile,
  sleep,
} from "@/lib/harness/testing";
import { createCommitLog } from "./sql-commit-log";
import {
  createDirBacking,
  getDirVersion,
  listDirCommits,
  listDirFiles,
  readDirFile,
} from "./dir-backing";
import { DirSnapshotCache } from "./internal/dir-snapshot-cache";
import { sha256Hex } from "./internal/files";
import { sqlFor, type Sql } from "./sql";

const database = registerTestDatabase();
let sql: Sql;
beforeAll(() => {
  sql = sqlFor(database.target);
});

type Body = { dirKey: string; userId?: string };
const provider = testDatabaseProvider();

function backingFor(options: { source?: "turn" | "editor"; snapshotCache?: false } = {}) {
  return createDirBacking<Body>({
    sql,
    dirKey: ({ extraBody }) => extraBody.dirKey,
    actorId: (extraBody) => extraBody.userId ?? null,
    ...options,
  });
}

runDirBackingConformance(`SQL dir backing on ${provider}`, () => ({
  backing: backingFor(),
  extraBody: { dirKey: `conformance:${randomUUID()}`, userId: "u1" },
  session: { chatId: "c1" },
}));

runDirBackingConformance(`SQL dir backing on ${provider}, snapshot cache off`, () => ({
  backing: backingFor({ snapshotCache: false }),
  extraBody: { dirKey: `conformance:${randomUUID()}`, userId: "u1" },
}));

describe(`SQL dir backing on ${provider}: rows in Prisma's format`, () => {
  it("reads files and history Prisma wrote, and writes rows Prisma reads back the same", async () => {
    const dirKey = `user:${randomUUID()}`;
    const at = new Date("2026-02-03T04:05:06.789Z");
    const bytes = new Uint8Array([0, 255, 1, 0xef, 0xbb, 0xbf]);
    const text = "\uFEFFhé\r\n𝄞 end";
    const textBytes = Buffer.from(text);
    const body = (content: Uint8Array) =>
      database.db.fileBody.upsert({
        where: { sha256: sha256Hex(content) },
        create: {
          sha256: sha256Hex(content),
          content: new Uint8Array(content),
          size: content.byteLength,
          touchedAt: at,
        },
        update: {},
      });
    await database.db.$transaction([
      database.db.persistentDirState.create({ data: { dirKey, version: 1, updatedAt: at } }),
      body(textBytes),
      body(bytes),
      database.db.persistentFile.create({
        data: {
          dirKey,
          path: "a.md",
          isText: true,
          size: textBytes.byteLength,
          sha256: sha256Hex(textBytes),
          updatedAt: at,
          updatedBy: "ada",
        },
      }),
      database.db.persistentFile.create({
        data: {
          dirKey,
          path: "b.bin",
          isText: false,
          size: 6,
          sha256: sha256Hex(bytes),
          updatedAt: at,
        },
      }),
      database.db.dirCommit.create({
        data: {
          dirKey,
          version: 1,
          source: "turn",
          created: '["a.md","b.bin"]',
          updated: "[]",
          deleted: "[]",
          createdAt: at,
        },
      }),
    ]);
    for (const backing of [backingFor(), backingFor({ snapshotCache: false })]) {
      const loaded = await backing.load({ extraBody: { dirKey }, session: null });
      expect(loaded.cursor).toBe(1);
      expect({ ...loaded.files }).toEqual({ "a.md": text, "b.bin": bytes });
      expect(loaded.updatedAt).toEqual({ "a.md": at.toISOString(), "b.bin": at.toISOString() });
    }
    const listed = await listDirFiles({ sql, dirKey });
    expect(
      listed.files.map((file) => [file.path, file.isText, file.updatedAt, file.updatedBy]),
    ).toEqual([
      ["a.md", true, at, "ada"],
      ["b.bin", false, at, null],
    ]);
    expect((await listDirCommits({ sql, dirKey })).commits[0]).toMatchObject({
      version: 1,
      created: ["a.md", "b.bin"],
      createdAt: at,
    });

    const stored = await backingFor({ source: "editor" }).store({
      extraBody: { dirKey, userId: "bob" },
      session: null,
      harnessDir: "/persistent/user",
      cursor: 1,
      snapshot: {},
      changes: {
        created: [{ path: "c.bin", content: bytes }],
        updated: [{ path: "a.md", content: `${text}!` }],
        deleted: ["b.bin"],
      },
    });
    expect(stored).toEqual({ status: "stored", cursor: 2 });
    const rows = await database.db.persistentFile.findMany({
      where: { dirKey },
      orderBy: { path: "asc" },
    });
    const bodies = new Map(
      (
        await database.db.fileBody.findMany({
          where: { sha256: { in: rows.map((row) => row.sha256) } },
        })
      ).map((found) => [found.sha256, found.content]),
    );
    expect(
      rows.map((row) => [
        row.path,
        row.isText,
        Buffer.from(bodies.get(row.sha256)!).toString("hex"),
        row.size,
        row.updatedBy,
      ]),
    ).toEqual([
      ["a.md", true, Buffer.from(`${text}!`).toString("hex"), Buffer.byteLength(`${text}!`), "bob"],
      ["c.bin", false, Buffer.from(bytes).toString("hex"), 6, "bob"],
    ]);
    expect(rows[0]!.updatedAt.getTime()).toBeGreaterThan(at.getTime());
    const state = await database.db.persistentDirState.findUniqueOrThrow({ where: { dirKey } });
    expect(state.version).toBe(2);
    const history = await database.db.dirCommit.findMany({
      where: { dirKey },
      orderBy: { version: "desc" },
    });
    expect(history[0]).toMatchObject({
      version: 2,
      actorId: "bob",
      source: "editor",
      updated: '["a.md"]',
      deleted: '["b.bin"]',
    });
  });

  it("rejects invalid paths before writing anything", async () => {
    const dirKey = `user:${randomUUID()}`;
    await expect(
      backingFor().store({
        extraBody: { dirKey },
        session: null,
        harnessDir: "/persistent/user",
        cursor: 0,
        snapshot: {},
        changes: {
          created: [
            { path: "ok.md", content: "a" },
            { path: "../escape.md", content: "b" },
          ],
          updated: [],
          deleted: [],
        },
      }),
    ).rejects.toThrow();
    expect(await getDirVersion({ sql, dirKey })).toBe(0);
    expect((await listDirFiles({ sql, dirKey })).files).toEqual([]);
  });
});

describe(`SQL dir backing on ${provider}: rows, history and helpers`, () => {
  it("keys rows by dirKey, records sha256/size/isText, and writes one history row per commit", async () => {
    const dirKey = `user:${randomUUID()}`;
    const other = `user:${randomUUID()}`;
    const backing = backingFor({ source: "editor" });
    const context = { extraBody: { dirKey, userId: "ada" }, session: null };
    const bytes = new Uint8Array([0, 255, 1]);
    const stored = await backing.store({
      ...context,
      harnessDir: "/persistent/user",
      cursor: 0,
      snapshot: {},
      changes: {
        created: [
          { path: "a.md", content: "\uFEFFhé\r\n" },
          { path: "b.bin", content: bytes },
        ],
        updated: [],
        deleted: [],
      },
    });
    expect(stored).toEqual({ status: "stored", cursor: 1 });
    expect((await backingFor().load({ extraBody: { dirKey: other }, session: null })).cursor).toBe(
      0,
    );

    const listed = await listDirFiles({ sql, dirKey });
    expect(listed.version).toBe(1);
    expect(listed.files.map((file) => [file.path, file.size, file.isText, file.updatedBy])).toEqual(
      [
        ["a.md", Buffer.byteLength("\uFEFFhé\r\n"), true, "ada"],
        ["b.bin", 3, false, "ada"],
      ],
    );
    expect(listed.files[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
    const text = await readDirFile({ sql, dirKey, path: "a.md" });
    expect(text?.content).toBe("\uFEFFhé\r\n");
    expect(text?.version).toBe(1);
    expect(await readDirFile({ sql, dirKey, path: "missing.md" })).toBeNull();

    await backing.store({
      ...context,
      harnessDir: "/persistent/user",
      cursor: 1,
      snapshot: {},
      changes: { created: [], updated: [{ path: "a.md", content: "v2" }], deleted: ["b.bin"] },
    });
    expect(await getDirVersion({ sql, dirKey })).toBe(2);
    const history = await listDirCommits({ sql, dirKey, limit: 1 });
    expect(history.commits).toHaveLength(1);
    expect(history.commits[0]).toMatchObject({
      version: 2,
      actorId: "ada",
      source: "editor",
      created: [],
      updated: ["a.md"],
      deleted: ["b.bin"],
    });
    const older = await listDirCommits({ sql, dirKey, cursor: history.nextCursor });
    expect(older.commits.map((commit) => commit.version)).toEqual([1]);
    expect(older.commits[0]!.created).toEqual(["a.md", "b.bin"]);
    expect(older.nextCursor).toBeNull();
    await expect(listDirCommits({ sql, dirKey, cursor: "nope" })).rejects.toThrow(/cursor/);
  });

  it("refuses a cursor that is not a version", async () => {
    await expect(
      backingFor().store({
        extraBody: { dirKey: `user:${randomUUID()}` },
        session: null,
        harnessDir: "/persistent/user",
        cursor: "abc",
        snapshot: {},
        changes: { created: [{ path: "a.md", content: "a" }], updated: [], deleted: [] },
      }),
    ).rejects.toThrow(/not a version/);
  });
});

describe(`SQL dir backing on ${provider}: derived data in the commit's transaction`, () => {
  const store = (
    backing: ReturnType<typeof createDirBacking<Body>>,
    dirKey: string,
    cursor: number,
    changes: StoreOptions<Body, null>["changes"],
  ) =>
    backing.store({
      extraBody: { dirKey, userId: "ada" },
      session: null,
      harnessDir: "/persistent/user",
      cursor,
      snapshot: {},
      changes,
    });
  const usageOf = async (quotaKey: string) =>
    (
      await sql.get<{ bytes: number }>(
        `SELECT "bytes" FROM "DirHistoryUsage" WHERE "quotaKey" = ?`,
        [quotaKey],
      )
    )?.bytes ?? null;

  it("lands what onDirCommitted writes through tx with the commit, and sees what changed", async () => {
    const dirKey = `user:${randomUUID()}`;
    const marker = `derived:${randomUUID()}`;
    const seen: unknown[] = [];
    const backing = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody }) => extraBody.dirKey,
      actorId: (extraBody) => extraBody.userId ?? null,
      onDirCommitted: async ({ tx, commit }) => {
        seen.push({ ...commit, at: commit.at instanceof Date });
        // A stand-in for an index row: any table, written through the commit's transaction.
        await tx.run(
          `INSERT INTO "DirHistoryUsage" ("quotaKey", "bytes", "updatedAt") VALUES (?, ?, ?)
           ON CONFLICT ("quotaKey") DO UPDATE SET "bytes" = excluded."bytes"`,
          [marker, commit.version, commit.at],
        );
      },
    });
    await store(backing, dirKey, 0, {
      created: [{ path: "a.md", content: "alpha" }],
      updated: [],
      deleted: [],
    });
    await store(backing, dirKey, 1, {
      created: [],
      updated: [{ path: "a.md", content: "beta" }],
      deleted: [],
    });
    expect(await usageOf(marker)).toBe(2);
    expect(seen).toEqual([
      {
        dirKey,
        version: 1,
        actorId: "ada",
        source: "turn",
        via: null,
        created: [{ path: "a.md", content: "alpha" }],
        updated: [],
        deleted: [],
        at: true,
      },
      {
        dirKey,
        version: 2,
        actorId: "ada",
        source: "turn",
        via: null,
        created: [],
        updated: [{ path: "a.md", content: "beta" }],
        deleted: [],
        at: true,
      },
    ]);
    // A lost compare-and-swap writes nothing and does not call it.
    const lost = await store(backing, dirKey, 1, {
      created: [{ path: "b.md", content: "x" }],
      updated: [],
      deleted: [],
    });
    expect(lost.status).toBe("conflict");
    expect(seen).toHaveLength(2);
  });

  it("rolls the whole commit back when onDirCommitted throws", async () => {
    const dirKey = `user:${randomUUID()}`;
    const marker = `derived:${randomUUID()}`;
    const backing = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody }) => extraBody.dirKey,
      snapshotCache: false,
      onDirCommitted: async ({ tx, commit }) => {
        await tx.run(
          `INSERT INTO "DirHistoryUsage" ("quotaKey", "bytes", "updatedAt") VALUES (?, ?, ?)`,
          [marker, commit.version, commit.at],
        );
        throw new Error("index unavailable");
      },
    });
    await expect(
      store(backing, dirKey, 0, {
        created: [{ path: "a.md", content: "alpha" }],
        updated: [],
        deleted: [],
      }),
    ).rejects.toThrow(/index unavailable/);
    expect(await getDirVersion({ sql, dirKey })).toBe(0);
    expect((await listDirFiles({ sql, dirKey })).files).toEqual([]);
    expect((await listDirCommits({ sql, dirKey })).commits).toEqual([]);
    expect(await usageOf(marker)).toBeNull();
  });
});

describe(`SQL dir backing on ${provider}: snapshot cache`, () => {
  const write = (
    backing: ReturnType<typeof backingFor>,
    dirKey: string,
    cursor: number,
    changes: Partial<StoreOptions["changes"]>,
  ) =>
    backing.store({
      extraBody: { dirKey },
      session: null,
      harnessDir: "/persistent/user",
      cursor,
      snapshot: {},
      changes: { created: [], updated: [], deleted: [], ...changes },
    });

  it("sees commits made through another client (another app instance) at the next load", async () => {
    const dirKey = `user:${randomUUID()}`;
    const here = backingFor();
    // A backing with its own cache, like a second server process on the same database.
    {
      const there = createDirBacking<Body>({
        sql,
        dirKey: ({ extraBody }) => extraBody.dirKey,
        snapshotCache: new DirSnapshotCache(),
      });
      await write(here, dirKey, 0, { created: [{ path: "a.md", content: "one" }] });
      expect((await here.load({ extraBody: { dirKey }, session: null })).files["a.md"]).toBe("one");
      expect((await there.load({ extraBody: { dirKey }, session: null })).cursor).toBe(1);

      await write(there, dirKey, 1, {
        updated: [{ path: "a.md", content: "two" }],
        created: [{ path: "b.md", content: "new" }],
      });
      const loaded = await here.load({ extraBody: { dirKey }, session: null });
      expect(loaded.cursor).toBe(2);
      expect({ ...loaded.files }).toEqual({ "a.md": "two", "b.md": "new" });
      // A store from the stale cursor still conflicts, and leaves the cache correct.
      expect((await write(here, dirKey, 1, { deleted: ["a.md"] })).status).toBe("conflict");
      await write(there, dirKey, 2, { deleted: ["a.md"] });
      expect({ ...(await here.load({ extraBody: { dirKey }, session: null })).files }).toEqual({
        "b.md": "new",
      });
    }
  });

  it("stores and deletes more files in one commit than one statement takes", async () => {
    const dirKey = `user:${randomUUID()}`;
    const backing = backingFor();
    const many = Array.from({ length: 1_201 }, (_, index) => ({
      path: `notes/${index}.md`,
      content: `note ${index}`,
    }));
    expect((await write(backing, dirKey, 0, { created: many })).status).toBe("stored");
    const deleted = many.slice(0, 1_100).map((file) => file.path);
    expect((await write(backing, dirKey, 1, { deleted })).status).toBe("stored");
    const listed = await listDirFiles({ sql, dirKey });
    expect(listed.files).toHaveLength(101);
    const uncached = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody }) => extraBody.dirKey,
      snapshotCache: false,
    });
    const fromDatabase = await uncached.load({ extraBody: { dirKey }, session: null });
    const fromCache = await backing.load({ extraBody: { dirKey }, session: null });
    expect({ ...fromCache.files }).toEqual({ ...fromDatabase.files });
    expect(Object.keys(fromDatabase.files)).toHaveLength(101);
  });

  it("hands out copies: mutating loaded or stored bytes changes nothing cached", async () => {
    const dirKey = `user:${randomUUID()}`;
    const backing = backingFor();
    const stored = new Uint8Array([1, 2, 3]);
    await write(backing, dirKey, 0, { created: [{ path: "a.bin", content: stored }] });
    stored[0] = 9;
    const first = await backing.load({ extraBody: { dirKey }, session: null });
    (first.files["a.bin"] as Uint8Array)[1] = 9;
    first.files["c.md"] = "injected";
    const second = await backing.load({ extraBody: { dirKey }, session: null });
    expect({ ...second.files }).toEqual({ "a.bin": new Uint8Array([1, 2, 3]) });
    // The file's time comes from the commit, cached or read.
    const uncached = createDirBacking<Body>({
      sql,
      dirKey: ({ extraBody }) => extraBody.dirKey,
      snapshotCache: false,
    });
    expect(second.updatedAt).toEqual(
      (await uncached.load({ extraBody: { dirKey }, session: null })).updatedAt,
    );
  });
});

const harnessDir = "/persistent/user";

describe(`SQL dir backing on ${provider}: concurrency and faults`, () => {
  it("loses no update across 50 concurrent turns of one user editing the same files", async () => {
    const turns = 50;
    const dirKey = `user:${randomUUID()}`;
    const backing = backingFor();
    const extraBody: Body = { dirKey, userId: "u1" };
    await backing.store({
      extraBody,
      session: null,
      harnessDir,
      cursor: 0,
      snapshot: {},
      changes: {
        created: [
          { path: "shared.md", content: sharedFile(turns, () => null) },
          { path: "title.md", content: "title: original\n" },
        ],
        updated: [],
        deleted: [],
      },
    });
    const random = seededRandom(50);
    const jitter = () => sleep(Math.floor(random() * 4));
    const dirs: PersistentDir<Body>[] = [{ harnessDir, load: backing.load, store: backing.store }];
    const commitLog = createCommitLog({ sql });
    const { results, titles } = await runContendedTurns({
      dirs,
      extraBody,
      commitLog,
      harnessDir,
      turns,
      jitter,
    });

    const commits = results.flatMap((result) =>
      result.status === "not-configured" ? [] : result.commits,
    );
    const succeeded = commits.filter((commit) => commit.status === "succeeded");
    const unsettled = commits.filter(
      (commit) => commit.status === "conflict" || commit.status === "failed",
    );
    // Each turn either committed (directly or merged) or left a durable record.
    expect(succeeded.length + unsettled.length).toBe(turns);
    expect(unsettled.every((commit) => commit.commitId !== undefined)).toBe(true);
    expect(succeeded.some((commit) => commit.merged)).toBe(true);
    const open = await commitLog.listCommits({ status: "open", limit: 500 });
    expect(open.commits.map((record) => record.id).sort()).toEqual(
      unsettled.map((commit) => commit.commitId).sort(),
    );

    // Settle what is left: retry; on a title clash keep the current title.
    for (let round = 0; round < 10; round += 1) {
      const pending = (await commitLog.listCommits({ status: "open", limit: 500 })).commits;
      if (pending.length === 0) break;
      for (const record of pending.reverse()) {
        const retried = await retryCommit({ id: record.id, dirs, commitLog });
        if (retried.status === "conflict" && retried.record.conflicts.length > 0) {
          expect(retried.record.conflicts.map((conflict) => conflict.path)).toEqual(["title.md"]);
          await resolveConflict({ id: record.id, dirs, commitLog, resolution: "theirs" });
        }
      }
    }
    expect((await commitLog.listCommits({ status: "open" })).commits).toEqual([]);
    const final = await backing.load({ extraBody, session: null });
    expect(final.files["shared.md"]).toBe(
      sharedFile(turns, (slot) => `slot ${slot}: edited by turn ${slot}`),
    );
    expect(titles.has(final.files["title.md"] as string)).toBe(true);
    // Every successful store left exactly one history row with the version it produced.
    const history = await listDirCommits({ sql, dirKey, limit: 500 });
    expect(history.commits.map((commit) => commit.version)).toEqual(
      Array.from({ length: Number(final.cursor) }, (_, index) => Number(final.cursor) - index),
    );
  }, 120_000);

  it("commits every change exactly once over 200 turns with a store failing at random", async () => {
    const turns = 200;
    const dirKey = `user:${randomUUID()}`;
    const inner = backingFor();
    const random = seededRandom(20250101);
    const { store, faults } = flakyStore(inner.store, random);
    const dirs: PersistentDir<Body>[] = [{ harnessDir, load: inner.load, store }];
    const commitLog = createCommitLog({ sql });
    const extraBody: Body = { dirKey, userId: "u1" };
    const owned = async () =>
      (await commitLog.listCommits({ status: "open", limit: 500 })).commits.filter(
        (record) => (record.extraBody as Body).dirKey === dirKey,
      );
    const retryOpen = async () => {
      for (const record of (await owned()).reverse())
        await retryCommit({ id: record.id, dirs, commitLog });
    };
    let failedTurns = 0;
    for (let turnIndex = 0; turnIndex < turns; turnIndex += 1) {
      const turn = await openTurnCheckout({
        dirs,
        extraBody,
        session: { chatId: "c1" },
        commitLog,
      });
      turn.checkout.writeFile({
        path: `${harnessDir}/turns/${turnIndex}.md`,
        content: `turn ${turnIndex}\n`,
      });
      const persistence = await turn.finishTurn({ status: "completed" });
      if (persistence.status === "failed") failedTurns += 1;
      if (random() < 0.3) await retryOpen();
    }
    for (let round = 0; round < 50 && (await owned()).length > 0; round += 1) await retryOpen();

    expect(faults.before).toBeGreaterThan(10);
    expect(faults.after).toBeGreaterThan(10);
    expect(failedTurns).toBeGreaterThan(10);
    expect(await owned()).toEqual([]);
    const files = (await inner.load({ extraBody, session: null })).files;
    expect(Object.keys(files)).toHaveLength(turns);
    for (let turnIndex = 0; turnIndex < turns; turnIndex += 1) {
      expect(files[`turns/${turnIndex}.md`]).toBe(`turn ${turnIndex}\n`);
      expect(
        faults.applied.get(`turns/${turnIndex}.md`),
        `turns/${turnIndex}.md applied once`,
      ).toBe(1);
    }
  }, 120_000);
});
