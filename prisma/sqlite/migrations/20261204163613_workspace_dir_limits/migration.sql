-- AlterTable
ALTER TABLE "WorkspaceSettings" ADD COLUMN "companyMaxBytes" BIGINT;
ALTER TABLE "WorkspaceSettings" ADD COLUMN "companyMaxFileBytes" BIGINT;
ALTER TABLE "WorkspaceSettings" ADD COLUMN "companyMaxFiles" INTEGER;
ALTER TABLE "WorkspaceSettings" ADD COLUMN "memoryMaxBytes" BIGINT;
ALTER TABLE "WorkspaceSettings" ADD COLUMN "memoryMaxFileBytes" BIGINT;
ALTER TABLE "WorkspaceSettings" ADD COLUMN "memoryMaxFiles" INTEGER;
