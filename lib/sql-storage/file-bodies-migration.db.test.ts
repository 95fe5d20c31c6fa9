import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

import { describe, expect, it } from "vitest";

import { migrateDatabase, migrationsDirectory } from "@/lib/db/migrate";
import { createTestDatabase, testDatabaseProvider } from "@/lib/db/testing";
import { createDirBacking } from "./dir-backing";
import { sha256Hex } from "./internal/files";
import { sqlFor } from "./sql";

const MIGRATION = "20261202105323_content_addressed_file_bodies";

describe(`the content-addressed bodies migration on ${testDatabaseProvider()}`, () => {
  it("moves every existing file's content into FileBody, once per body, and loads it back", async () => {
    const provider = testDatabaseProvider();
    const root = mkdtempSync(path.join(tmpdir(), "cairn-bodies-migration-"));
    const folder = provider === "sqlite" ? "sqlite" : "postgres";
    cpSync(path.join(process.cwd(), "prisma", folder), path.join(root, "prisma", folder), {
      recursive: true,
    });
    rmSync(path.join(migrationsDirectory(provider, root), MIGRATION), { recursive: true });
    const database = await createTestDatabase({ root });
    try {
      const sql = sqlFor(database.target);
      const at = new Date("2026-01-02T03:04:05.000Z");
      const text = Buffer.from("shared policy\n");
      const bytes = Buffer.from([0, 255, 7]);
      const rows: [string, string, Buffer, boolean, string][] = [
        ["company:w1", "a.md", text, true, sha256Hex(text)],
        ["company:w2", "copy.md", text, true, sha256Hex(text)],
        ["user:u1", "b.bin", bytes, false, sha256Hex(bytes)],
        // Written by hand with no real hash: must keep its own body.
        ["user:u1", "odd.md", Buffer.from("odd"), true, ""],
        ["user:u2", "odd.md", Buffer.from("other"), true, ""],
      ];
      for (const [dirKey, filePath, content, isText, sha256] of rows) {
        await sql.run(
          `INSERT INTO "PersistentFile" ("dirKey", "path", "content", "isText", "size", "sha256", "updatedAt", "updatedBy")
           VALUES (?, ?, ?, ?, ?, ?, ?, NULL)`,
          [dirKey, filePath, content, isText, content.byteLength, sha256, at],
        );
      }
      for (const dirKey of ["company:w1", "company:w2", "user:u1", "user:u2"]) {
        await sql.run(
          `INSERT INTO "PersistentDirState" ("dirKey", "version", "updatedAt") VALUES (?, 1, ?)`,
          [dirKey, at],
        );
      }

      const result = await migrateDatabase({ target: database.target });
      expect(result.applied).toEqual([MIGRATION]);

      const bodies = await sql.all<{ sha256: string }>(`SELECT "sha256" FROM "FileBody"`);
      expect(bodies.filter((row) => row.sha256 === sha256Hex(text))).toHaveLength(1);
      const backing = createDirBacking<{ dirKey: string }>({
        sql,
        dirKey: ({ extraBody }) => extraBody.dirKey,
        snapshotCache: false,
      });
      const load = async (dirKey: string) =>
        ({ ...(await backing.load({ extraBody: { dirKey }, session: null })).files }) as Record<
          string,
          unknown
        >;
      expect(await load("company:w1")).toEqual({ "a.md": "shared policy\n" });
      expect(await load("company:w2")).toEqual({ "copy.md": "shared policy\n" });
      expect(await load("user:u1")).toEqual({
        "b.bin": new Uint8Array([0, 255, 7]),
        "odd.md": "odd",
      });
      expect(await load("user:u2")).toEqual({ "odd.md": "other" });
    } finally {
      await database.cleanup();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
