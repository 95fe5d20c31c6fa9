"use server";

import { z } from "zod";
import { action } from "@/lib/actions";
import { getPersistentDirs } from "@/lib/persistent-dirs";

/**
 * The live save status of one of the caller's turns, for the chat's status line while its
 * changes are retried: the service checks the turn is in one of the caller's chats (someone
 * else's turn reads as missing).
 */
export const turnSaveStatusAction = action(
  {
    input: z.object({
      turnId: z.string().min(1).max(200),
      expected: z.number().int().min(0).max(20),
    }),
  },
  async ({ input, actor }) =>
    getPersistentDirs().turnSaveStatus({ actor, turnId: input.turnId, spooled: input.expected }),
);
