-- AlterTable
ALTER TABLE "Refinement" ADD COLUMN     "autoVerdict" TEXT,
ADD COLUMN     "autoVerdictAt" TIMESTAMP(3),
ADD COLUMN     "autoVerdictStats" TEXT;

-- AlterTable
ALTER TABLE "WorkspaceSettings" ADD COLUMN     "feedbackGuardRail" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "feedbackJudgeAfter" INTEGER NOT NULL DEFAULT 10,
ADD COLUMN     "feedbackRefineThreshold" INTEGER NOT NULL DEFAULT 3;

-- CreateTable
CREATE TABLE "TurnOutcome" (
    "id" TEXT NOT NULL,
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
    "turnAt" TIMESTAMP(3) NOT NULL,
    "answeredBy" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "TurnOutcome_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "TurnOutcome_turnId_key" ON "TurnOutcome"("turnId");

-- CreateIndex
CREATE INDEX "TurnOutcome_workspaceId_turnAt_idx" ON "TurnOutcome"("workspaceId", "turnAt");

-- CreateIndex
CREATE INDEX "TurnOutcome_chatId_turnAt_idx" ON "TurnOutcome"("chatId", "turnAt");

-- CreateIndex
CREATE INDEX "TurnOutcome_answeredBy_idx" ON "TurnOutcome"("answeredBy");

-- AddForeignKey
ALTER TABLE "TurnOutcome" ADD CONSTRAINT "TurnOutcome_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "TurnOutcome" ADD CONSTRAINT "TurnOutcome_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "Chat"("id") ON DELETE CASCADE ON UPDATE CASCADE;

