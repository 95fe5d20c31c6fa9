-- CreateTable
CREATE TABLE "OidcSettings" (
    "id" TEXT NOT NULL,
    "workspaceId" TEXT NOT NULL,
    "issuer" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "clientSecretEncrypted" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "allowedDomains" TEXT NOT NULL DEFAULT '',
    "defaultRole" TEXT NOT NULL DEFAULT 'member',
    "groupsClaim" TEXT,
    "groupRoles" TEXT NOT NULL DEFAULT '',
    "version" INTEGER NOT NULL DEFAULT 1,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "updatedBy" TEXT,

    CONSTRAINT "OidcSettings_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "OidcSettings_workspaceId_key" ON "OidcSettings"("workspaceId");

-- AddForeignKey
ALTER TABLE "OidcSettings" ADD CONSTRAINT "OidcSettings_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

