-- CreateTable
CREATE TABLE "Chat" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Chat_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "Chat_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "PersistentFile" (
    "dirKey" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "content" BLOB NOT NULL,
    "isText" BOOLEAN NOT NULL,
    "size" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT,

    PRIMARY KEY ("dirKey", "path")
);

-- CreateTable
CREATE TABLE "PersistentDirState" (
    "dirKey" TEXT NOT NULL PRIMARY KEY,
    "version" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "DirCommit" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "dirKey" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "actorId" TEXT,
    "source" TEXT NOT NULL,
    "created" TEXT NOT NULL,
    "updated" TEXT NOT NULL,
    "deleted" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "DirCommitRecord" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "harnessDir" TEXT NOT NULL,
    "mode" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "owner" TEXT,
    "changes" TEXT NOT NULL,
    "baseCursor" TEXT NOT NULL,
    "base" TEXT NOT NULL,
    "extraBody" TEXT NOT NULL,
    "session" TEXT NOT NULL,
    "error" TEXT,
    "conflicts" TEXT NOT NULL,
    "attempts" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL,
    "updatedAt" DATETIME NOT NULL,
    "resolvedAt" DATETIME,
    "resolution" TEXT,
    "resolvedCursor" TEXT
);

-- CreateIndex
CREATE INDEX "Chat_workspaceId_userId_updatedAt_idx" ON "Chat"("workspaceId", "userId", "updatedAt");

-- CreateIndex
CREATE INDEX "DirCommit_dirKey_createdAt_idx" ON "DirCommit"("dirKey", "createdAt");

-- CreateIndex
CREATE INDEX "DirCommitRecord_owner_status_createdAt_idx" ON "DirCommitRecord"("owner", "status", "createdAt");

-- CreateIndex
CREATE INDEX "DirCommitRecord_status_createdAt_idx" ON "DirCommitRecord"("status", "createdAt");

