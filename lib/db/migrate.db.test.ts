import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrateDatabase, migrationsDirectory, readMigrations } from "./migrate";
import { registerTestDatabase, testDatabaseProvider } from "./testing";

describe(`migrations (${testDatabaseProvider()})`, () => {
  const database = registerTestDatabase();

  it("applies every migration once and records it in _prisma_migrations", async () => {
    const all = readMigrations(migrationsDirectory(database.target.provider));
    const rows = await database.db.$queryRawUnsafe<{ migration_name: string }[]>(
      `SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((row) => row.migration_name)).toEqual(all.map((migration) => migration.name));
    const again = await migrateDatabase({ target: database.target });
    expect(again).toEqual({ applied: [], alreadyApplied: all.length });
  });

  it("refuses to run when an applied migration file was edited", async () => {
    const root = mkdtempSync(path.join(tmpdir(), "cairn-migrations-"));
    try {
      const folder = database.target.provider === "sqlite" ? "sqlite" : "postgres";
      cpSync(path.join(process.cwd(), "prisma", folder), path.join(root, "prisma", folder), {
        recursive: true,
      });
      const [first] = readMigrations(migrationsDirectory(database.target.provider, root));
      writeFileSync(
        path.join(
          migrationsDirectory(database.target.provider, root),
          first!.name,
          "migration.sql",
        ),
        `${first!.sql}\n-- edited\n`,
      );
      await expect(migrateDatabase({ target: database.target, root })).rejects.toThrow(
        /was changed after it was applied/,
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
