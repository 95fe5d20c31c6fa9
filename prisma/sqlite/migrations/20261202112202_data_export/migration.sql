-- CreateTable
CREATE TABLE "DataExport" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "bytes" INTEGER,
    "error" TEXT,
    "createdAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "expiresAt" DATETIME
);

-- CreateTable
CREATE TABLE "DataExportChunk" (
    "exportId" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "bytes" BLOB NOT NULL,

    PRIMARY KEY ("exportId", "seq")
);

-- CreateIndex
CREATE INDEX "DataExport_userId_workspaceId_createdAt_idx" ON "DataExport"("userId", "workspaceId", "createdAt");

-- CreateIndex
CREATE INDEX "DataExport_expiresAt_idx" ON "DataExport"("expiresAt");

