-- AlterTable
ALTER TABLE "Refinement" ADD COLUMN "autoVerdict" TEXT;
ALTER TABLE "Refinement" ADD COLUMN "autoVerdictAt" DATETIME;
ALTER TABLE "Refinement" ADD COLUMN "autoVerdictStats" TEXT;

-- CreateTable
CREATE TABLE "TurnOutcome" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "chatId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "rating" TEXT NOT NULL,
    "comment" TEXT,
    "tags" TEXT NOT NULL DEFAULT '[]',
    "source" TEXT NOT NULL,
    "harnessVersion" INTEGER,
    "entriesShown" TEXT NOT NULL DEFAULT '[]',
    "dirCursors" TEXT NOT NULL DEFAULT '{}',
    "model" TEXT,
    "turnAt" DATETIME NOT NULL,
    "answeredBy" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "TurnOutcome_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "TurnOutcome_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "Chat" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_WorkspaceSettings" (
    "workspaceId" TEXT NOT NULL PRIMARY KEY,
    "tokenBudget" INTEGER NOT NULL DEFAULT 4000,
    "refineEveryTurns" INTEGER NOT NULL DEFAULT 25,
    "refineAfterCompaction" BOOLEAN NOT NULL DEFAULT true,
    "refineCooldownMinutes" INTEGER NOT NULL DEFAULT 20,
    "globalRefineNeedsApproval" BOOLEAN NOT NULL DEFAULT false,
    "feedbackRefineThreshold" INTEGER NOT NULL DEFAULT 3,
    "feedbackJudgeAfter" INTEGER NOT NULL DEFAULT 10,
    "feedbackGuardRail" BOOLEAN NOT NULL DEFAULT false,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "WorkspaceSettings_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_WorkspaceSettings" ("globalRefineNeedsApproval", "refineAfterCompaction", "refineCooldownMinutes", "refineEveryTurns", "tokenBudget", "updatedAt", "workspaceId") SELECT "globalRefineNeedsApproval", "refineAfterCompaction", "refineCooldownMinutes", "refineEveryTurns", "tokenBudget", "updatedAt", "workspaceId" FROM "WorkspaceSettings";
DROP TABLE "WorkspaceSettings";
ALTER TABLE "new_WorkspaceSettings" RENAME TO "WorkspaceSettings";
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE UNIQUE INDEX "TurnOutcome_turnId_key" ON "TurnOutcome"("turnId");

-- CreateIndex
CREATE INDEX "TurnOutcome_workspaceId_turnAt_idx" ON "TurnOutcome"("workspaceId", "turnAt");

-- CreateIndex
CREATE INDEX "TurnOutcome_chatId_turnAt_idx" ON "TurnOutcome"("chatId", "turnAt");

-- CreateIndex
CREATE INDEX "TurnOutcome_answeredBy_idx" ON "TurnOutcome"("answeredBy");

