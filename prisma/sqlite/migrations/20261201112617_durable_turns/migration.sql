-- AlterTable
ALTER TABLE "DirCommitRecord" ADD COLUMN "nextAttemptAt" DATETIME;
ALTER TABLE "DirCommitRecord" ADD COLUMN "turnId" TEXT;

-- AlterTable
ALTER TABLE "Turn" ADD COLUMN "leaseExpiresAt" DATETIME;

-- CreateTable
CREATE TABLE "TurnJournalEntry" (
    "turnId" TEXT NOT NULL,
    "harnessDir" TEXT NOT NULL,
    "revision" INTEGER NOT NULL,
    "payload" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("turnId", "harnessDir")
);

-- CreateIndex
CREATE INDEX "TurnJournalEntry_updatedAt_idx" ON "TurnJournalEntry"("updatedAt");

-- CreateIndex
CREATE INDEX "DirCommitRecord_status_nextAttemptAt_idx" ON "DirCommitRecord"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "DirCommitRecord_turnId_idx" ON "DirCommitRecord"("turnId");

-- CreateIndex
CREATE INDEX "Turn_status_leaseExpiresAt_idx" ON "Turn"("status", "leaseExpiresAt");
