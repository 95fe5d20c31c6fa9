-- CreateTable
CREATE TABLE "AuditEvent" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT,
    "actorId" TEXT,
    "kind" TEXT NOT NULL,
    "targetType" TEXT,
    "targetId" TEXT,
    "details" TEXT NOT NULL DEFAULT '{}',
    "via" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AuditEvent_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RetentionSettings" (
    "workspaceId" TEXT NOT NULL,
    "chatRetentionDays" INTEGER,
    "auditRetentionDays" INTEGER,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "RetentionSettings_pkey" PRIMARY KEY ("workspaceId")
);

-- CreateTable
CREATE TABLE "ErasedPerson" (
    "workspaceId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "erasedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ErasedPerson_pkey" PRIMARY KEY ("workspaceId","userId")
);

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_actorId_createdAt_id_idx" ON "AuditEvent"("workspaceId", "actorId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "AuditEvent_workspaceId_kind_createdAt_id_idx" ON "AuditEvent"("workspaceId", "kind", "createdAt", "id");

