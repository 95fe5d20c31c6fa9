-- AlterTable
ALTER TABLE "DirCommitRecord" ADD COLUMN     "bytes" INTEGER NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "DirCommitRecord_owner_status_bytes_idx" ON "DirCommitRecord"("owner", "status", "bytes");


-- Backfill (decision 0030, "Commit failures have a bound"): each record's bytes, the UTF-8
-- bytes of its JSON columns, counted as lib/storage/commit-log.ts counts them.
UPDATE "DirCommitRecord" SET "bytes" = octet_length("changes") + octet_length("base") + octet_length("conflicts") + octet_length(COALESCE("error", '')) + octet_length("extraBody") + octet_length("session");
