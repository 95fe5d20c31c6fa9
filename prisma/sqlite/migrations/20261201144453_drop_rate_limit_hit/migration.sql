-- DropTable
PRAGMA foreign_keys=off;
DROP TABLE "RateLimitHit";
PRAGMA foreign_keys=on;

