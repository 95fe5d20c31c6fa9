-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_DirCommitRecord" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "harnessDir" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "owner" TEXT,
    "changes" TEXT NOT NULL,
    "baseCursor" TEXT NOT NULL,
    "base" TEXT NOT NULL,
    "extraBody" TEXT NOT NULL,
    "session" TEXT NOT NULL,
    "error" TEXT,
    "conflicts" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "resolvedAt" DATETIME,
    "resolution" TEXT,
    "resolvedCursor" TEXT,
    "nextAttemptAt" DATETIME,
    "turnId" TEXT,
    "bytes" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_DirCommitRecord" ("attempts", "base", "baseCursor", "changes", "conflicts", "createdAt", "error", "extraBody", "harnessDir", "id", "mode", "nextAttemptAt", "owner", "resolution", "resolvedAt", "resolvedCursor", "session", "status", "turnId", "updatedAt") SELECT "attempts", "base", "baseCursor", "changes", "conflicts", "createdAt", "error", "extraBody", "harnessDir", "id", "mode", "nextAttemptAt", "owner", "resolution", "resolvedAt", "resolvedCursor", "session", "status", "turnId", "updatedAt" FROM "DirCommitRecord";
DROP TABLE "DirCommitRecord";
ALTER TABLE "new_DirCommitRecord" RENAME TO "DirCommitRecord";
CREATE INDEX "DirCommitRecord_owner_status_createdAt_idx" ON "DirCommitRecord"("owner", "status", "createdAt");
CREATE INDEX "DirCommitRecord_owner_status_bytes_idx" ON "DirCommitRecord"("owner", "status", "bytes");
CREATE INDEX "DirCommitRecord_status_createdAt_idx" ON "DirCommitRecord"("status", "createdAt");
CREATE INDEX "DirCommitRecord_status_nextAttemptAt_idx" ON "DirCommitRecord"("status", "nextAttemptAt");
CREATE INDEX "DirCommitRecord_turnId_idx" ON "DirCommitRecord"("turnId");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;


-- Backfill (decision 0030, "Commit failures have a bound"): each record's bytes, the UTF-8
-- bytes of its JSON columns, counted as lib/storage/commit-log.ts counts them.
UPDATE "DirCommitRecord" SET "bytes" = length(CAST("changes" AS BLOB)) + length(CAST("base" AS BLOB)) + length(CAST("conflicts" AS BLOB)) + length(CAST(COALESCE("error", '') AS BLOB)) + length(CAST("extraBody" AS BLOB)) + length(CAST("session" AS BLOB));
