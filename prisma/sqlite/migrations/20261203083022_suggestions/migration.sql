-- CreateTable
CREATE TABLE "Suggestion" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "authorId" TEXT NOT NULL,
    "target" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "note" TEXT NOT NULL DEFAULT '',
    "harnessDir" TEXT,
    "payload" TEXT NOT NULL,
    "chatId" TEXT,
    "turnId" TEXT,
    "via" TEXT,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "decidedById" TEXT,
    "decidedAt" DATETIME,
    "decisionNote" TEXT,
    "applied" TEXT
);

-- CreateIndex
CREATE INDEX "Suggestion_workspaceId_status_createdAt_idx" ON "Suggestion"("workspaceId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "Suggestion_workspaceId_authorId_createdAt_idx" ON "Suggestion"("workspaceId", "authorId", "createdAt");

-- CreateIndex
CREATE INDEX "Suggestion_turnId_idx" ON "Suggestion"("turnId");

