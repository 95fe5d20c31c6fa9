-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_Chat" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    "compactionSummary" TEXT,
    "compactedThroughId" TEXT,
    "temporary" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "Chat_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Chat_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Chat" ("compactedThroughId", "compactionSummary", "createdAt", "id", "title", "updatedAt", "userId", "workspaceId") SELECT "compactedThroughId", "compactionSummary", "createdAt", "id", "title", "updatedAt", "userId", "workspaceId" FROM "Chat";
DROP TABLE "Chat";
ALTER TABLE "new_Chat" RENAME TO "Chat";
CREATE INDEX "Chat_workspaceId_userId_updatedAt_idx" ON "Chat"("workspaceId", "userId", "updatedAt");
CREATE INDEX "Chat_temporary_createdAt_idx" ON "Chat"("temporary", "createdAt");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

