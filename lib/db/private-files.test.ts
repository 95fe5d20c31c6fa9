import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendEnvValue } from "@/scripts/env-file.mjs";
import { migrateDatabase } from "./migrate";
import { securePrivateSqliteFile } from "./private-files";

/** Issue 31, finding 8: `cairn.db` was created 0644 (and its folder 0755). */
describe("the database's files are owner-only", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), "cairn-modes-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const modeOf = (target: string) => statSync(target).mode & 0o777;

  it("migrates a new SQLite database into a 0700 data dir as 0600 files, WAL and shared memory too", async () => {
    const dataDir = path.join(root, "data");
    const filePath = path.join(dataDir, "cairn.db");
    const previous = process.env.CAIRN_DATA_DIR;
    process.env.CAIRN_DATA_DIR = dataDir;
    try {
      await migrateDatabase({
        target: { provider: "sqlite", url: `file:${filePath}`, filePath },
      });
      // The app's connection (WAL mode) writes while the files are looked at.
      const db = new Database(filePath);
      db.pragma("journal_mode = WAL");
      db.exec(`CREATE TABLE "probe" ("a" TEXT)`);
      expect(modeOf(dataDir)).toBe(0o700);
      for (const file of ["cairn.db", "cairn.db-wal", "cairn.db-shm"]) {
        expect([file, modeOf(path.join(dataDir, file))]).toEqual([file, 0o600]);
      }
      db.close();
    } finally {
      if (previous === undefined) delete process.env.CAIRN_DATA_DIR;
      else process.env.CAIRN_DATA_DIR = previous;
    }
  });

  it("tightens a data dir and database files made before", () => {
    const dataDir = path.join(root, "data");
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const filePath = path.join(dataDir, "cairn.db");
    for (const file of [filePath, `${filePath}-wal`, `${filePath}-shm`]) {
      writeFileSync(file, "");
      chmodSync(file, 0o644);
    }

    securePrivateSqliteFile(filePath, { dataDirectory: dataDir });

    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of [filePath, `${filePath}-wal`, `${filePath}-shm`]) {
      expect(modeOf(file)).toBe(0o600);
    }
  });

  it("leaves the mode of a folder named in DATABASE_URL that is not the data dir", () => {
    const shared = path.join(root, "shared");
    mkdirSync(shared);
    chmodSync(shared, 0o755);
    const filePath = path.join(shared, "cairn.db");

    securePrivateSqliteFile(filePath, { dataDirectory: path.join(root, "data") });

    expect(modeOf(shared)).toBe(0o755);
    expect(modeOf(filePath)).toBe(0o600);
  });

  it("keeps .env.local (AUTH_SECRET) owner-only when it writes to it, even one made before", () => {
    const envFile = path.join(root, ".env.local");
    writeFileSync(envFile, "DATABASE_URL=file:./data/cairn.db\n");
    chmodSync(envFile, 0o644);
    appendEnvValue(envFile, "AUTH_SECRET", "secret", "generated");
    expect(modeOf(envFile)).toBe(0o600);
  });
});
