-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "bucket" TEXT NOT NULL,
    "windowStart" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    "nextAllowedAt" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" BIGINT NOT NULL,

    CONSTRAINT "RateLimitBucket_pkey" PRIMARY KEY ("bucket")
);

-- CreateTable
CREATE TABLE "ChatTurnClaim" (
    "chatId" TEXT NOT NULL,
    "turnId" TEXT NOT NULL,
    "leaseUntil" BIGINT NOT NULL,

    CONSTRAINT "ChatTurnClaim_pkey" PRIMARY KEY ("chatId")
);

-- AddForeignKey
ALTER TABLE "ChatTurnClaim" ADD CONSTRAINT "ChatTurnClaim_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "Chat"("id") ON DELETE CASCADE ON UPDATE CASCADE;

