-- AlterTable
ALTER TABLE "PersonalAccessToken" ADD COLUMN     "membershipId" TEXT;


-- Bind each token to the membership it was issued under: the person's membership of the token's
-- workspace, if it existed when the token was made. A token made before the current membership
-- (the person was removed and added again) or with no membership at all is left unbound, and
-- revoked: it ended with the membership that issued it.
UPDATE "PersonalAccessToken" SET "membershipId" = (
    SELECT m."id" FROM "Membership" m
    WHERE m."userId" = "PersonalAccessToken"."userId"
      AND m."workspaceId" = "PersonalAccessToken"."workspaceId"
      AND m."createdAt" <= "PersonalAccessToken"."createdAt"
);
UPDATE "PersonalAccessToken" SET "revokedAt" = CURRENT_TIMESTAMP
WHERE "membershipId" IS NULL AND "revokedAt" IS NULL;
