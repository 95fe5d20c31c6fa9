-- CreateTable
CREATE TABLE "Suggestion" (
    "id" TEXT NOT NULL,
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
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "decidedById" TEXT,
    "decidedAt" TIMESTAMP(3),
    "decisionNote" TEXT,
    "applied" TEXT,

    CONSTRAINT "Suggestion_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Suggestion_workspaceId_status_createdAt_idx" ON "Suggestion"("workspaceId", "status", "createdAt");

-- CreateIndex
CREATE INDEX "Suggestion_workspaceId_authorId_createdAt_idx" ON "Suggestion"("workspaceId", "authorId", "createdAt");

-- CreateIndex
CREATE INDEX "Suggestion_turnId_idx" ON "Suggestion"("turnId");

