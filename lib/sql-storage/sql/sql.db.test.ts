import { beforeAll, describe, expect, it } from "vitest";

import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import {
  isUniqueViolation,
  observeSql,
  plannedPerCall,
  sqlFor,
  toBool,
  toBytes,
  toDate,
  type Sql,
  type SqlStatementEvent,
} from "./index";

const database = registerTestDatabase();
let sql: Sql;
beforeAll(() => {
  sql = sqlFor(database.target);
});

describe(`the SQL layer on ${testDatabaseProvider()}`, () => {
  it("runs a statement marked plannedPerCall unprepared on PostgreSQL, the same on both", async () => {
    const marked = plannedPerCall(`SELECT ? || 'marked' AS "text"`);
    const named = `SELECT ? || 'named' AS "text"`;
    const prepared = await sql.transaction(async (tx) => {
      expect(await tx.get(marked, ["a "])).toEqual({ text: "a marked" });
      expect(await tx.get(named, ["a "])).toEqual({ text: "a named" });
      return tx.dialect === "postgres"
        ? (
            await tx.all<{ statement: string }>(`SELECT "statement" FROM pg_prepared_statements`)
          ).map((row) => row.statement)
        : [];
    });
    if (sql.dialect === "postgres") {
      expect(prepared.some((text) => text.includes("'named'"))).toBe(true);
      expect(prepared.some((text) => text.includes("'marked'"))).toBe(false);
    }
  });

  it("is one client per database", () => {
    expect(sqlFor(database.target)).toBe(sql);
    expect(sql.dialect).toBe(testDatabaseProvider() === "sqlite" ? "sqlite" : "postgres");
  });

  it("tells observers every statement, BEGIN and COMMIT included, until they stop", async () => {
    const seen: SqlStatementEvent[] = [];
    const stop = observeSql((event) => seen.push(event));
    await sql.get(`SELECT 1 AS "one"`);
    await sql.transaction(async (tx) => {
      await tx.run(`DELETE FROM "PersistentFile" WHERE "dirKey" = ?`, ["d:observed"]);
    });
    stop();
    await sql.get(`SELECT 2 AS "two"`);
    const begin = sql.dialect === "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN";
    expect(seen.map((event) => [event.text, event.inTransaction])).toEqual([
      [`SELECT 1 AS "one"`, false],
      [begin, true],
      [`DELETE FROM "PersistentFile" WHERE "dirKey" = ?`, true],
      ["COMMIT", true],
    ]);
    expect(seen.every((event) => event.dialect === sql.dialect)).toBe(true);
  });

  it("round-trips dates, booleans, bytes and integers in the format Prisma reads", async () => {
    const at = new Date("2026-03-04T05:06:07.089Z");
    const bytes = new Uint8Array([0, 1, 254, 255]);
    await sql.run(
      `INSERT INTO "FileBody" ("sha256", "content", "size", "touchedAt") VALUES (?, ?, ?, ?)`,
      ["sql-test:x", bytes, 4, at],
    );
    await sql.run(
      `INSERT INTO "PersistentFile" ("dirKey", "path", "isText", "size", "sha256", "updatedAt", "updatedBy")
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      ["d:1", "a.bin", false, 4, "sql-test:x", at, null],
    );
    const row = await sql.get<Record<string, unknown>>(
      `SELECT f.*, b."content" FROM "PersistentFile" f JOIN "FileBody" b ON b."sha256" = f."sha256"
       WHERE f."dirKey" = ? AND f."path" = ?`,
      ["d:1", "a.bin"],
    );
    expect(toDate(row!.updatedAt).toISOString()).toBe(at.toISOString());
    expect(toBool(row!.isText)).toBe(false);
    expect([...toBytes(row!.content)]).toEqual([...bytes]);
    expect(row!.size).toBe(4);
    // Prisma reads the row back the same.
    const viaPrisma = await database.db.persistentFile.findUniqueOrThrow({
      where: { dirKey_path: { dirKey: "d:1", path: "a.bin" } },
    });
    expect(viaPrisma.updatedAt.toISOString()).toBe(at.toISOString());
    expect(viaPrisma.isText).toBe(false);
    const bodyViaPrisma = await database.db.fileBody.findUniqueOrThrow({
      where: { sha256: viaPrisma.sha256 },
    });
    expect([...bodyViaPrisma.content]).toEqual([...bytes]);
    // … and a row Prisma wrote reads back here the same, comparable with a bound Date.
    await database.db.persistentFile.create({
      data: {
        dirKey: "d:1",
        path: "b.md",
        isText: true,
        size: 2,
        sha256: "y",
        updatedAt: at,
      },
    });
    const later = await sql.all<{ path: string; isText: unknown; updatedAt: unknown }>(
      `SELECT "path", "isText", "updatedAt" FROM "PersistentFile" WHERE "dirKey" = ? AND "updatedAt" = ? ORDER BY "path"`,
      ["d:1", at],
    );
    expect(
      later.map((item) => [item.path, toBool(item.isText), toDate(item.updatedAt).getTime()]),
    ).toEqual([
      ["a.bin", false, at.getTime()],
      ["b.md", true, at.getTime()],
    ]);
    const count = await sql.get<{ n: number }>(
      `SELECT COUNT(*) AS "n" FROM "PersistentFile" WHERE "dirKey" = ?`,
      ["d:1"],
    );
    expect(count!.n).toBe(2);
  });

  it("commits a transaction, rolls one back on a throw, and reports unique violations", async () => {
    const insert = `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, ?, ?)`;
    const version = await sql.transaction(async (tx) => {
      await tx.run(insert, ["t:1", 1, new Date()]);
      const row = await tx.get<{ version: number }>(
        `UPDATE "PersistentDirState" SET "version" = "version" + 1 WHERE "dirKey" = ? RETURNING "version"`,
        ["t:1"],
      );
      return row!.version;
    });
    expect(version).toBe(2);
    await expect(
      sql.transaction(async (tx) => {
        await tx.run(`UPDATE "PersistentDirState" SET "version" = 9 WHERE "dirKey" = ?`, ["t:1"]);
        throw new Error("nope");
      }),
    ).rejects.toThrow("nope");
    const error = await sql.run(insert, ["t:1", 1, new Date()]).catch((caught: unknown) => caught);
    expect(isUniqueViolation(error)).toBe(true);
    const after = await sql.get<{ version: number }>(
      `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`,
      ["t:1"],
    );
    expect(after!.version).toBe(2);
  });

  it("runs concurrent transactions one after another without losing an update", async () => {
    await sql.run(
      `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, 0, ?)`,
      ["t:2", new Date()],
    );
    await Promise.all(
      Array.from({ length: 20 }, () =>
        sql.transaction(async (tx) => {
          const row = await tx.get<{ version: number }>(
            `UPDATE "PersistentDirState" SET "version" = "version" + 1 WHERE "dirKey" = ? RETURNING "version"`,
            ["t:2"],
          );
          await tx.run(`UPDATE "PersistentDirState" SET "updatedAt" = ? WHERE "dirKey" = ?`, [
            new Date(),
            "t:2",
          ]);
          return row!.version;
        }),
      ),
    );
    const row = await sql.get<{ version: number }>(
      `SELECT "version" FROM "PersistentDirState" WHERE "dirKey" = ?`,
      ["t:2"],
    );
    expect(row!.version).toBe(20);
  });
});
