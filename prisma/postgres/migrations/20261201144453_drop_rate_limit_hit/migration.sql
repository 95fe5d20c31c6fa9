-- DropTable
DROP TABLE "RateLimitHit";

