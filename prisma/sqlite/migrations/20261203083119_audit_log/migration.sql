-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "workspaceId" TEXT,
    "actorId" TEXT,
    "kind" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" TEXT NOT NULL DEFAULT '{}',
    "via" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL
);

-- CreateTable
CREATE TABLE "RetentionSettings" (
    "workspaceId" TEXT NOT NULL PRIMARY KEY,
    "chatRetentionDays" INTEGER,
    "auditRetentionDays" INTEGER,
    "updatedAt" DATETIME NOT NULL,
    "updatedBy" TEXT
);

-- CreateTable
CREATE TABLE "ErasedPerson" (
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "erasedAt" DATETIME NOT NULL,

    PRIMARY KEY ("workspaceId", "userId")
);

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_actorId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "actorId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_kind_createdAt_id_idx" ON "AuditEvent"("workspaceId", "kind", "createdAt", "id");

