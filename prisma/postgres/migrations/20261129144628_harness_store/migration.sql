-- CreateTable
CREATE TABLE "HarnessEntry" (
    "workspaceId" TEXT NOT NULL,
    "entryKey" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "chatId" TEXT,
    "title" TEXT NOT NULL,
    "content" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "metadata" TEXT NOT NULL,
    "pinned" BOOLEAN NOT NULL,
    "source" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "createdBy" TEXT NOT NULL,
    "updatedBy" TEXT NOT NULL,
    "searchText" TEXT NOT NULL,

    CONSTRAINT "HarnessEntry_pkey" PRIMARY KEY ("workspaceId","entryKey")
);

-- CreateTable
CREATE TABLE "HarnessRevision" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "entryKey" TEXT NOT NULL,
    "entryId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "chatId" TEXT,
    "action" TEXT NOT NULL,
    "before" TEXT,
    "after" TEXT,
    "actorId" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "cause" TEXT NOT NULL,
    "harnessVersion" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "HarnessRevision_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "HarnessCounter" (
    "workspaceId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,

    CONSTRAINT "HarnessCounter_pkey" PRIMARY KEY ("workspaceId")
);

-- CreateIndex
CREATE INDEX "HarnessEntry_workspaceId_updatedAt_idx" ON "HarnessEntry"("workspaceId", "updatedAt");

-- CreateIndex
CREATE INDEX "HarnessEntry_workspaceId_kind_scope_idx" ON "HarnessEntry"("workspaceId", "kind", "scope");

-- CreateIndex
CREATE INDEX "HarnessRevision_workspaceId_entryKey_harnessVersion_idx" ON "HarnessRevision"("workspaceId", "entryKey", "harnessVersion");

-- CreateIndex
CREATE INDEX "HarnessRevision_workspaceId_harnessVersion_entryKey_idx" ON "HarnessRevision"("workspaceId", "harnessVersion", "entryKey");

-- AddForeignKey
ALTER TABLE "HarnessEntry" ADD CONSTRAINT "HarnessEntry_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HarnessRevision" ADD CONSTRAINT "HarnessRevision_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "HarnessCounter" ADD CONSTRAINT "HarnessCounter_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

