-- AlterTable
ALTER TABLE "WorkspaceSettings" ADD COLUMN     "companyMaxBytes" BIGINT,
ADD COLUMN     "companyMaxFileBytes" BIGINT,
ADD COLUMN     "companyMaxFiles" INTEGER,
ADD COLUMN     "memoryMaxBytes" BIGINT,
ADD COLUMN     "memoryMaxFileBytes" BIGINT,
ADD COLUMN     "memoryMaxFiles" INTEGER;

