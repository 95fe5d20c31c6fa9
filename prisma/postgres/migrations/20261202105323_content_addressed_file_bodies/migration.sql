-- CreateTable
CREATE TABLE "FileBody" (
    "sha256" TEXT NOT NULL,
    "content" BYTEA NOT NULL,
    "size" INTEGER NOT NULL,
    "touchedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "FileBody_pkey" PRIMARY KEY ("sha256")
);

-- Content-addressed bodies (decision 0035): each distinct body once, keyed by its sha256
-- (computed here again, so a row written by hand with another value cannot share a key).
UPDATE "PersistentFile" SET "sha256" = encode(sha256("content"), 'hex')
WHERE "sha256" IS DISTINCT FROM encode(sha256("content"), 'hex');
INSERT INTO "FileBody" ("sha256", "content", "size", "touchedAt")
SELECT DISTINCT ON ("sha256") "sha256", "content", octet_length("content"), "updatedAt"
FROM "PersistentFile"
ORDER BY "sha256", "updatedAt" DESC
ON CONFLICT ("sha256") DO NOTHING;

-- AlterTable
ALTER TABLE "PersistentFile" DROP COLUMN "content";

-- CreateIndex
CREATE INDEX "FileBody_touchedAt_idx" ON "FileBody"("touchedAt");

-- CreateIndex
CREATE INDEX "PersistentFile_sha256_idx" ON "PersistentFile"("sha256");
