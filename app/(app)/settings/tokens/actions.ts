"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import {
  AccessTokenError,
  createAccessToken,
  revokeAccessToken,
  tokenNameSchema,
} from "@/lib/access-tokens";
import { requireActor } from "@/lib/auth";
import { getDb } from "@/lib/db";

export type TokenActionResult = { ok: true; token?: string } | { ok: false; error: string };

const createSchema = z.object({
  name: tokenNameSchema,
  /** 0 = never expires. */
  expiresInDays: z.coerce.number().int().min(0).max(3650),
});

// Parse, then the Actor from the session (the token is bound to it: person and workspace), then act.

export async function createTokenAction(input: {
  name: string;
  expiresInDays: number | string;
}): Promise<TokenActionResult> {
  const parsed = createSchema.safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) {
    return { ok: false, error: parsed.error.issues[0]?.message ?? "Invalid token settings." };
  }
  try {
    const { token } = await createAccessToken(getDb(), {
      userId: actor.userId,
      workspaceId: actor.workspaceId,
      name: parsed.data.name,
      expiresAt:
        parsed.data.expiresInDays === 0
          ? null
          : new Date(Date.now() + parsed.data.expiresInDays * 24 * 60 * 60 * 1000),
    });
    revalidatePath("/settings/tokens");
    return { ok: true, token };
  } catch (error) {
    if (error instanceof AccessTokenError) return { ok: false, error: error.message };
    throw error;
  }
}

export async function revokeTokenAction(input: { id: string }): Promise<TokenActionResult> {
  const parsed = z.object({ id: z.string().min(1).max(100) }).safeParse(input);
  const actor = await requireActor();
  if (!parsed.success) return { ok: false, error: "Invalid token." };
  // Only the owner's own token in the current workspace matches; anything else changes nothing.
  const revoked = await revokeAccessToken(getDb(), {
    userId: actor.userId,
    workspaceId: actor.workspaceId,
    id: parsed.data.id,
  });
  revalidatePath("/settings/tokens");
  return revoked ? { ok: true } : { ok: false, error: "That token does not exist or is revoked." };
}
