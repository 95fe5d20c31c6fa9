import { randomUUID } from "node:crypto";

import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

import { createTestDatabase, testDatabaseProvider, type TestDatabase } from "@/lib/db/testing";
import { type FileContent } from "@/lib/harness";
import { type PersistentDirBacking } from "@/lib/harness/spi";
import { runDirBackingConformance } from "@/lib/harness/testing";
import { dirBackingFor } from "./dir-backing-for";
import {
  createPrismaDirBacking,
  getDirVersion,
  listDirCommits,
  listDirFiles,
  readDirFile,
} from "./prisma-dir-backing";
import { createSqliteDirBacking, type SqliteDirBacking } from "./sqlite-dir-backing";

// better-sqlite3 on the Prisma SQLite file: nothing to run against PostgreSQL.
const onSqlite = testDatabaseProvider() === "sqlite";

type Body = { dirKey: string; userId?: string };

let database: TestDatabase;
let connection: Database.Database;
beforeAll(async () => {
  if (!onSqlite) return;
  database = await createTestDatabase();
  if (database.target.provider !== "sqlite") throw new Error("expected SQLite");
  connection = new Database(database.target.filePath);
  connection.pragma("busy_timeout = 5000");
});
afterAll(async () => {
  if (!onSqlite) return;
  connection.close();
  await database.cleanup();
});

const sqliteBacking = (options: { snapshotCache?: false; source?: "editor" } = {}) =>
  createSqliteDirBacking<Body>({
    database: connection,
    dirKey: ({ extraBody }) => extraBody.dirKey,
    actorId: (extraBody) => extraBody.userId ?? null,
    ...options,
  });
const prismaBacking = (options: { snapshotCache?: false } = {}) =>
  createPrismaDirBacking<Body>({
    db: database.db,
    dirKey: ({ extraBody }) => extraBody.dirKey,
    actorId: (extraBody) => extraBody.userId ?? null,
    ...options,
  });

const store = (
  backing: PersistentDirBacking<Body>,
  dirKey: string,
  cursor: number,
  changes: {
    created?: { path: string; content: FileContent }[];
    updated?: { path: string; content: FileContent }[];
    deleted?: string[];
  },
) =>
  backing.store({
    extraBody: { dirKey, userId: "ada" },
    session: null,
    harnessDir: "/persistent/user",
    cursor,
    snapshot: {},
    changes: { created: [], updated: [], deleted: [], ...changes },
  });
const load = (backing: PersistentDirBacking<Body>, dirKey: string) =>
  backing.load({ extraBody: { dirKey }, session: null });

if (onSqlite) {
  runDirBackingConformance("better-sqlite3 on the Prisma SQLite file", () => ({
    backing: sqliteBacking(),
    extraBody: { dirKey: `conformance:${randomUUID()}`, userId: "u1" },
    session: { chatId: "c1" },
  }));

  runDirBackingConformance("better-sqlite3, snapshot cache off", () => ({
    backing: sqliteBacking({ snapshotCache: false }),
    extraBody: { dirKey: `conformance:${randomUUID()}`, userId: "u1" },
  }));

  describe("SQLite dir backing next to the Prisma dir backing", () => {
    const text = "\uFEFFhé\r\n𝄞 end";
    const bytes = new Uint8Array([0, 255, 1, 0xef, 0xbb, 0xbf]);

    for (const [writer, reader] of [
      ["SQLite", "Prisma"],
      ["Prisma", "SQLite"],
    ] as const) {
      it(`reads back with ${reader} exactly what ${writer} wrote, text and bytes`, async () => {
        const write = writer === "SQLite" ? sqliteBacking() : prismaBacking();
        const readers = [
          reader === "SQLite" ? sqliteBacking() : prismaBacking(),
          reader === "SQLite"
            ? sqliteBacking({ snapshotCache: false })
            : prismaBacking({ snapshotCache: false }),
        ];
        const dirKey = `user:${randomUUID()}`;
        expect(
          await store(write, dirKey, 0, {
            created: [
              { path: "a.md", content: text },
              { path: "bin/b.bin", content: bytes },
              { path: "gone.md", content: "x" },
            ],
          }),
        ).toEqual({ status: "stored", cursor: 1 });
        expect(
          await store(write, dirKey, 1, {
            updated: [{ path: "a.md", content: `${text}!` }],
            deleted: ["gone.md"],
          }),
        ).toEqual({ status: "stored", cursor: 2 });

        const expected = await load(write, dirKey);
        for (const read of readers) {
          const loaded = await load(read, dirKey);
          expect(loaded.cursor).toBe(2);
          expect({ ...loaded.files }).toEqual({ "a.md": `${text}!`, "bin/b.bin": bytes });
          expect(typeof loaded.files["a.md"]).toBe("string");
          expect(loaded.files["bin/b.bin"]).toBeInstanceOf(Uint8Array);
          expect(loaded.updatedAt).toEqual(expected.updatedAt);
        }

        // The helpers the Files pages use (Prisma) see the same rows and history.
        expect(await getDirVersion({ db: database.db, dirKey })).toBe(2);
        const listed = await listDirFiles({ db: database.db, dirKey });
        expect(
          listed.files.map((file) => [file.path, file.size, file.isText, file.updatedBy]),
        ).toEqual([
          ["a.md", Buffer.byteLength(`${text}!`), true, "ada"],
          ["bin/b.bin", bytes.byteLength, false, "ada"],
        ]);
        expect(
          (await readDirFile({ db: database.db, dirKey, path: "bin/b.bin" }))?.content,
        ).toEqual(bytes);
        const history = await listDirCommits({ db: database.db, dirKey });
        expect(
          history.commits.map(({ version, actorId, source, created, updated, deleted }) => ({
            version,
            actorId,
            source,
            created,
            updated,
            deleted,
          })),
        ).toEqual([
          {
            version: 2,
            actorId: "ada",
            source: "turn",
            created: [],
            updated: ["a.md"],
            deleted: ["gone.md"],
          },
          {
            version: 1,
            actorId: "ada",
            source: "turn",
            created: ["a.md", "bin/b.bin", "gone.md"],
            updated: [],
            deleted: [],
          },
        ]);

        // Each continues from the other's cursor, and a stale cursor conflicts on both.
        const next = await store(readers[0]!, dirKey, 2, { deleted: ["a.md"] });
        expect(next).toEqual({ status: "stored", cursor: 3 });
        for (const backing of [write, readers[0]!]) {
          const stale = await store(backing, dirKey, 2, { deleted: ["bin/b.bin"] });
          expect(stale).toMatchObject({ status: "conflict", currentCursor: 3 });
        }
        expect({ ...(await load(write, dirKey)).files }).toEqual({ "bin/b.bin": bytes });
      });
    }

    it("writes the same row values as the Prisma backing", async () => {
      const viaSqlite = `user:${randomUUID()}`;
      const viaPrisma = `user:${randomUUID()}`;
      const changes = {
        created: [
          { path: "a.md", content: text },
          { path: "b.bin", content: bytes },
        ],
      };
      await store(sqliteBacking({ source: "editor" }), viaSqlite, 0, changes);
      await store(
        createPrismaDirBacking<Body>({
          db: database.db,
          dirKey: ({ extraBody }) => extraBody.dirKey,
          actorId: (extraBody) => extraBody.userId ?? null,
          source: "editor",
        }),
        viaPrisma,
        0,
        changes,
      );
      const rows = (table: string, dirKey: string, columns: string) =>
        connection
          .prepare(
            `SELECT ${columns}, typeof("${table === "DirCommit" ? "createdAt" : "updatedAt"}") AS "dateType"
              FROM "${table}" WHERE "dirKey" = ? ORDER BY 1`,
          )
          .all(dirKey);
      const files = `"path", "content", "isText", "size", "sha256", "updatedBy", length("updatedAt") AS "dateLength"`;
      expect(rows("PersistentFile", viaSqlite, files)).toEqual(
        rows("PersistentFile", viaPrisma, files),
      );
      const state = `"version", length("updatedAt") AS "dateLength"`;
      expect(rows("PersistentDirState", viaSqlite, state)).toEqual(
        rows("PersistentDirState", viaPrisma, state),
      );
      const commit = `"version", "actorId", "source", "created", "updated", "deleted", length("createdAt") AS "dateLength"`;
      expect(rows("DirCommit", viaSqlite, commit)).toEqual(rows("DirCommit", viaPrisma, commit));
      const stored = connection
        .prepare(`SELECT "updatedAt" FROM "PersistentFile" WHERE "dirKey" = ?`)
        .pluck()
        .all(viaSqlite);
      expect(stored[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    });

    it("sees commits made through Prisma at the next load, cache or not", async () => {
      const dirKey = `user:${randomUUID()}`;
      const here = sqliteBacking();
      await store(here, dirKey, 0, { created: [{ path: "a.md", content: "one" }] });
      expect((await load(here, dirKey)).files["a.md"]).toBe("one");
      await store(prismaBacking(), dirKey, 1, {
        updated: [{ path: "a.md", content: "two" }],
        created: [{ path: "b.md", content: "new" }],
      });
      const loaded = await load(here, dirKey);
      expect(loaded.cursor).toBe(2);
      expect({ ...loaded.files }).toEqual({ "a.md": "two", "b.md": "new" });
    });

    it("rejects invalid paths and cursors before writing anything", async () => {
      const dirKey = `user:${randomUUID()}`;
      const backing = sqliteBacking();
      await expect(
        store(backing, dirKey, 0, {
          created: [
            { path: "ok.md", content: "a" },
            { path: "../escape.md", content: "b" },
          ],
        }),
      ).rejects.toThrow();
      await expect(
        backing.store({
          extraBody: { dirKey },
          session: null,
          harnessDir: "/persistent/user",
          cursor: "abc",
          snapshot: {},
          changes: { created: [{ path: "a.md", content: "a" }], updated: [], deleted: [] },
        }),
      ).rejects.toThrow(/not a version/);
      expect(await getDirVersion({ db: database.db, dirKey })).toBe(0);
      expect((await listDirFiles({ db: database.db, dirKey })).files).toEqual([]);
    });

    it("opens its own connection from a file path, and dirBackingFor picks it on SQLite", async () => {
      if (database.target.provider !== "sqlite") throw new Error("expected SQLite");
      const dirKey = `user:${randomUUID()}`;
      const own: SqliteDirBacking<Body> = createSqliteDirBacking<Body>({
        filePath: database.target.filePath,
        dirKey: ({ extraBody }) => extraBody.dirKey,
      });
      try {
        await store(own, dirKey, 0, { created: [{ path: "a.md", content: "a" }] });
      } finally {
        own.close();
      }
      const chosen = dirBackingFor<Body>({
        db: database.db,
        target: database.target,
        dirKey: ({ extraBody }) => extraBody.dirKey,
      });
      expect({ ...(await load(chosen, dirKey)).files }).toEqual({ "a.md": "a" });
      expect(await store(chosen, dirKey, 1, { deleted: ["a.md"] })).toEqual({
        status: "stored",
        cursor: 2,
      });
    });
  });
} else {
  describe.skip("SQLite dir backing (SQLite only)", () => {
    it("runs on SQLite only", () => {});
  });
}
