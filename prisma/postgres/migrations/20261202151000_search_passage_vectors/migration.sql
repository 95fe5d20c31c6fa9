-- CreateTable
CREATE TABLE "SearchPassageVector" (
    "passageId" INTEGER NOT NULL,
    "model" TEXT NOT NULL,
    "vector" BYTEA NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SearchPassageVector_pkey" PRIMARY KEY ("passageId")
);

-- AddForeignKey
ALTER TABLE "SearchPassageVector" ADD CONSTRAINT "SearchPassageVector_passageId_fkey" FOREIGN KEY ("passageId") REFERENCES "SearchPassage"("id") ON DELETE CASCADE ON UPDATE CASCADE;

