-- AlterTable
ALTER TABLE "DirCommit" ADD COLUMN     "contents" TEXT;

-- AlterTable
ALTER TABLE "Invite" ADD COLUMN     "note" TEXT NOT NULL DEFAULT '';

