-- AlterTable
ALTER TABLE "DirCommit" ADD COLUMN     "historyBytes" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "quotaKey" TEXT;

-- AlterTable
ALTER TABLE "PersistentDirState" ADD COLUMN     "compactedBelow" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "historyBytes" BIGINT NOT NULL DEFAULT 0;

-- CreateTable
CREATE TABLE "DirHistoryUsage" (
    "quotaKey" TEXT NOT NULL,
    "bytes" BIGINT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DirHistoryUsage_pkey" PRIMARY KEY ("quotaKey")
);

-- CreateIndex
CREATE INDEX "DirCommit_dirKey_version_idx" ON "DirCommit"("dirKey", "version");


-- Backfill (decision 0030): each history row's bytes (UTF-8 bytes of its contents and path
-- lists), each dir's counter, and the workspace quota of company dirs. Personal memory written
-- before this migration counts against its own dir only.
UPDATE "DirCommit" SET "historyBytes" = octet_length(COALESCE("contents", '')) + octet_length("created") + octet_length("updated") + octet_length("deleted");
UPDATE "DirCommit" SET "quotaKey" = 'workspace:' || substr("dirKey", 9) WHERE substr("dirKey", 1, 8) = 'company:';
UPDATE "PersistentDirState" SET "historyBytes" = COALESCE((SELECT SUM(c."historyBytes") FROM "DirCommit" c WHERE c."dirKey" = "PersistentDirState"."dirKey"), 0);
INSERT INTO "DirHistoryUsage" ("quotaKey", "bytes", "updatedAt") SELECT "quotaKey", SUM("historyBytes"), timezone('UTC', now()) FROM "DirCommit" WHERE "quotaKey" IS NOT NULL GROUP BY "quotaKey";
