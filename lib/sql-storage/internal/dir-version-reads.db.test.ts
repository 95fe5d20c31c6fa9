import { describe, expect, it } from "vitest";
import { registerTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { observeSql, sqlFor, type Sql } from "../sql";
import { DirVersionReads } from "./dir-version-reads";

const database = registerTestDatabase();

describe(`DirVersionReads (${testDatabaseProvider()})`, () => {
  it("answers reads that start together with one statement, each with its own dir's version", async () => {
    const sql = sqlFor(database.target);
    await sql.run(
      `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, ?, ?), (?, ?, ?)`,
      ["user:a", 3, new Date(), "company:w", 7, new Date()],
    );
    const reads = new DirVersionReads(sql);
    const texts: string[] = [];
    const stop = observeSql((event) => texts.push(event.text));
    try {
      // Together (as a turn's dir loads start): one statement; a missing dir is at version 0.
      expect(
        await Promise.all([
          reads.read("user:a"),
          reads.read("company:w"),
          reads.read("user:a"),
          reads.read("user:none"),
        ]),
      ).toEqual([3, 7, 3, 0]);
      expect(texts).toHaveLength(1);
      expect(texts[0]).toContain(`IN (?, ?, ?)`);

      // A read after the statement ran sees the database as it is then.
      await sql.run(`UPDATE "PersistentDirState" SET "version" = 4 WHERE "dirKey" = ?`, ["user:a"]);
      expect(await reads.read("user:a")).toBe(4);
      expect(texts).toHaveLength(3);
    } finally {
      stop();
    }
  });

  it("fails every read of a batch whose statement fails, and the next batch runs afresh", async () => {
    let calls = 0;
    const failing = {
      all: async () => {
        calls += 1;
        if (calls === 1) throw new Error("database away");
        return [{ dirKey: "user:a", version: 2 }];
      },
    } as unknown as Sql;
    const reads = new DirVersionReads(failing);
    const results = await Promise.allSettled([reads.read("user:a"), reads.read("company:w")]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "rejected"]);
    expect(String((results[0] as PromiseRejectedResult).reason)).toContain("database away");
    expect(await reads.read("user:a")).toBe(2);
  });
});
