-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "bucket" TEXT NOT NULL PRIMARY KEY,
    "windowStart" BIGINT NOT NULL,
    "count" INTEGER NOT NULL,
    "nextAllowedAt" BIGINT NOT NULL DEFAULT 0,
    "updatedAt" BIGINT NOT NULL
);

-- CreateTable
CREATE TABLE "ChatTurnClaim" (
    "chatId" TEXT NOT NULL PRIMARY KEY,
    "turnId" TEXT NOT NULL,
    "leaseUntil" BIGINT NOT NULL,
    CONSTRAINT "ChatTurnClaim_chatId_fkey" FOREIGN KEY ("chatId") REFERENCES "Chat" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

