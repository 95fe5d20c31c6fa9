import { getSql } from "@/lib/sql-storage/sql";
import type { Actor } from "@/lib/harness";
import { createAccessToken, listAccessTokens, revokeAccessToken } from "./access-tokens";

/**
 * The token settings page's queries, on the app's database; each is bound to the Actor (the
 * person in the current workspace), so nobody reaches another person's tokens.
 */

export function listOwnTokens(actor: Actor) {
  return listAccessTokens(getSql(), { userId: actor.userId, workspaceId: actor.workspaceId });
}

export function createOwnToken(actor: Actor, input: { name: string; expiresAt: Date | null }) {
  return createAccessToken(getSql(), {
    userId: actor.userId,
    workspaceId: actor.workspaceId,
    ...input,
  });
}

/** Whether a token was revoked now (another person's, unknown or revoked: false). */
export function revokeOwnToken(actor: Actor, id: string): Promise<boolean> {
  return revokeAccessToken(getSql(), { userId: actor.userId, workspaceId: actor.workspaceId, id });
}
