-- CreateTable
CREATE TABLE "SearchPassageVector" (
    "passageId" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "model" TEXT NOT NULL,
    "vector" BLOB NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "SearchPassageVector_passageId_fkey" FOREIGN KEY ("passageId") REFERENCES "SearchPassage" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

