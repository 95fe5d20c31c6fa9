-- AlterTable
ALTER TABLE "Chat" ADD COLUMN     "temporary" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Chat_temporary_createdAt_idx" ON "Chat"("temporary", "createdAt");

