-- CreateTable
CREATE TABLE "Refinement" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "chatId" TEXT,
    "scope" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "reviewDecision" TEXT,
    "summary" TEXT NOT NULL DEFAULT '',
    "rationale" TEXT NOT NULL DEFAULT '',
    "expectedOutcome" TEXT NOT NULL DEFAULT '',
    "instructions" TEXT,
    "edits" TEXT NOT NULL DEFAULT '[]',
    "error" TEXT,
    "harnessVersionBefore" INTEGER,
    "harnessVersionAfter" INTEGER,
    "model" TEXT,
    "usage" TEXT,
    "actorId" TEXT,
    "rollbackOf" TEXT,
    "outcomeVerdict" TEXT,
    "outcomeNote" TEXT,
    "outcomeBy" TEXT,
    "outcomeAt" DATETIME,
    "externalKey" TEXT,
    "payload" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Refinement_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "Refinement_workspaceId_createdAt_idx" ON "Refinement"("workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "Refinement_workspaceId_chatId_createdAt_idx" ON "Refinement"("workspaceId", "chatId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Refinement_workspaceId_externalKey_key" ON "Refinement"("workspaceId", "externalKey");

