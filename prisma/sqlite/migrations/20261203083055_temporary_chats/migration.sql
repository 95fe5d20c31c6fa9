-- AlterTable
-- Written by hand: Prisma's generated migration redefines "Chat" (create, copy, drop, rename),
-- which the search index's triggers on "ChatMessage" refuse ("no such table: main.Chat").
-- SQLite adds a NOT NULL column with a constant default in place.
ALTER TABLE "Chat" ADD COLUMN "temporary" BOOLEAN NOT NULL DEFAULT false;

-- CreateIndex
CREATE INDEX "Chat_temporary_createdAt_idx" ON "Chat"("temporary", "createdAt");
