"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action, fail } from "@/lib/actions";
import { promoteToTeam } from "@/lib/review";
import { reviewDeps } from "@/lib/review/process-review";

const targetSchema = z.union([
  z.object({
    target: z.literal("entry"),
    kind: z.enum(["memory", "prompt"]),
    title: z.string().trim().min(1).max(200),
  }),
  z.object({ target: z.literal("dir"), path: z.string().trim().min(1).max(512) }),
]);

/**
 * "Suggest for the team": a chat-local entry, a memory note or a passage of one becomes a
 * suggestion to add it to global entries or company knowledge. Anyone may suggest; an editor's
 * or admin's promotion is approved at once by them (the role read from the database).
 */
export const promoteToTeamAction = action(
  {
    input: z.object({
      to: targetSchema,
      text: z
        .string()
        .min(1)
        .max(64 * 1024),
      note: z.string().max(2000).default(""),
    }),
  },
  async ({ input, actor }) => {
    const result = await promoteToTeam(reviewDeps(), { actor, ...input });
    revalidatePath("/review");
    revalidatePath("/", "layout");
    if (result.status === "not-applied")
      fail(`suggestion:${result.result.status}`, result.result.message);
    return result;
  },
);
