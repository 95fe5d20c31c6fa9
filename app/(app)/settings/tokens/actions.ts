"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { tokenNameSchema } from "@/lib/access-tokens";
import { createOwnToken, revokeOwnToken } from "@/lib/access-tokens/queries";
import { action, fail } from "@/lib/actions";

const DAY_MS = 24 * 60 * 60 * 1000;

const createSchema = z.object({
  name: tokenNameSchema,
  /** 0 = never expires. */
  expiresInDays: z.coerce.number().int().min(0).max(3650),
});

// The shared wrapper (parse, Actor, error mapping), then the change; the token is bound to the
// Actor (person and workspace).

export const createTokenAction = action({ input: createSchema }, async ({ input, actor }) => {
  const { token } = await createOwnToken(actor, {
    name: input.name,
    expiresAt:
      input.expiresInDays === 0 ? null : new Date(Date.now() + input.expiresInDays * DAY_MS),
  });
  revalidatePath("/settings/tokens");
  return { token };
});

export const revokeTokenAction = action(
  { input: z.object({ id: z.string().min(1).max(100) }) },
  async ({ input, actor }) => {
    // Only the owner's own token in the current workspace matches; anything else changes nothing.
    const revoked = await revokeOwnToken(actor, input.id);
    revalidatePath("/settings/tokens");
    if (!revoked) fail("not_found:token", "That token does not exist or is revoked.");
  },
);
