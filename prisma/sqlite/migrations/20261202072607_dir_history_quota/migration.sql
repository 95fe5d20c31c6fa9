-- CreateTable
CREATE TABLE "DirHistoryUsage" (
    "quotaKey" TEXT NOT NULL PRIMARY KEY,
    "bytes" BIGINT NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DirCommit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "dirKey" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "actorId" TEXT,
    "source" TEXT NOT NULL,
    "via" TEXT,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "deleted" TEXT NOT NULL,
    "contents" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "historyBytes" INTEGER NOT NULL DEFAULT 0,
    "quotaKey" TEXT
);
INSERT INTO "new_DirCommit" ("actorId", "contents", "created", "createdAt", "deleted", "dirKey", "id", "source", "updated", "version", "via") SELECT "actorId", "contents", "created", "createdAt", "deleted", "dirKey", "id", "source", "updated", "version", "via" FROM "DirCommit";
DROP TABLE "DirCommit";
ALTER TABLE "new_DirCommit" RENAME TO "DirCommit";
CREATE INDEX "DirCommit_dirKey_createdAt_idx" ON "DirCommit"("dirKey", "createdAt");
CREATE INDEX "DirCommit_dirKey_version_idx" ON "DirCommit"("dirKey", "version");
CREATE TABLE "new_PersistentDirState" (
    "dirKey" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "historyBytes" BIGINT NOT NULL DEFAULT 0,
    "compactedBelow" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_PersistentDirState" ("dirKey", "updatedAt", "version") SELECT "dirKey", "updatedAt", "version" FROM "PersistentDirState";
DROP TABLE "PersistentDirState";
ALTER TABLE "new_PersistentDirState" RENAME TO "PersistentDirState";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;


-- Backfill (decision 0030): each history row's bytes (UTF-8 bytes of its contents and path
-- lists), each dir's counter, and the workspace quota of company dirs. Personal memory written
-- before this migration counts against its own dir only.
UPDATE "DirCommit" SET "historyBytes" = length(CAST(COALESCE("contents", '') AS BLOB)) + length(CAST("created" AS BLOB)) + length(CAST("updated" AS BLOB)) + length(CAST("deleted" AS BLOB));
UPDATE "DirCommit" SET "quotaKey" = 'workspace:' || substr("dirKey", 9) WHERE substr("dirKey", 1, 8) = 'company:';
UPDATE "PersistentDirState" SET "historyBytes" = COALESCE((SELECT SUM(c."historyBytes") FROM "DirCommit" c WHERE c."dirKey" = "PersistentDirState"."dirKey"), 0);
INSERT INTO "DirHistoryUsage" ("quotaKey", "bytes", "updatedAt") SELECT "quotaKey", SUM("historyBytes"), strftime('%Y-%m-%dT%H:%M:%S.000+00:00', 'now') FROM "DirCommit" WHERE "quotaKey" IS NOT NULL GROUP BY "quotaKey";
