-- CreateTable
CREATE TABLE "ResourceLock" (
    "key" TEXT NOT NULL,
    "owner" TEXT NOT NULL,
    "expiresAt" BIGINT NOT NULL,

    CONSTRAINT "ResourceLock_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Job" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "payload" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "singletonKey" TEXT,
    "retryLimit" INTEGER NOT NULL,
    "retryCount" INTEGER NOT NULL DEFAULT 0,
    "retryDelay" INTEGER NOT NULL,
    "retryBackoff" BOOLEAN NOT NULL,
    "expireIn" INTEGER NOT NULL,
    "startAfter" BIGINT NOT NULL,
    "lockedBy" TEXT,
    "lockedUntil" BIGINT,
    "output" TEXT,
    "createdAt" BIGINT NOT NULL,
    "startedAt" BIGINT,
    "completedAt" BIGINT,

    CONSTRAINT "Job_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Job_name_state_startAfter_idx" ON "Job"("name", "state", "startAfter");

-- CreateIndex
CREATE INDEX "Job_name_singletonKey_idx" ON "Job"("name", "singletonKey");

