-- CreateTable
CREATE TABLE "FileBody" (
    "sha256" TEXT NOT NULL PRIMARY KEY,
    "content" BLOB NOT NULL,
    "size" INTEGER NOT NULL,
    "touchedAt" DATETIME NOT NULL
);

-- Content-addressed bodies (decision 0035): each distinct body once, keyed by its sha256. A row
-- whose sha256 is not a lowercase hex digest (written by hand, not by the app) keeps its body
-- under a key of its own, so no two different bodies can meet under one key.
INSERT OR IGNORE INTO "FileBody" ("sha256", "content", "size", "touchedAt")
SELECT CASE WHEN length("sha256") = 64 AND "sha256" NOT GLOB '*[^0-9a-f]*' THEN "sha256" ELSE 'row:' || "dirKey" || '/' || "path" END, "content", length("content"), "updatedAt"
FROM "PersistentFile";

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_PersistentFile" (
    "dirKey" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "isText" BOOLEAN NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT,

    PRIMARY KEY ("dirKey", "path")
);
INSERT INTO "new_PersistentFile" ("dirKey", "isText", "path", "sha256", "size", "updatedAt", "updatedBy") SELECT "dirKey", "isText", "path", CASE WHEN length("sha256") = 64 AND "sha256" NOT GLOB '*[^0-9a-f]*' THEN "sha256" ELSE 'row:' || "dirKey" || '/' || "path" END, "size", "updatedAt", "updatedBy" FROM "PersistentFile";
DROP TABLE "PersistentFile";
ALTER TABLE "new_PersistentFile" RENAME TO "PersistentFile";
CREATE INDEX "PersistentFile_sha256_idx" ON "PersistentFile"("sha256");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "FileBody_touchedAt_idx" ON "FileBody"("touchedAt");

