"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { action } from "@/lib/actions";
import { requestDataExport } from "@/lib/data-export";
import { deleteOwnMemory } from "@/lib/erasure";
import { getJobQueue } from "@/lib/jobs";
import { getSql } from "@/lib/sql-storage";

/** "Download my data": queues a build of the person's export (one at a time). */
export const requestDataExportAction = action({ input: z.object({}) }, async ({ actor }) => {
  const requested = await requestDataExport({ sql: getSql(), queue: getJobQueue(), actor });
  revalidatePath("/settings/data");
  return { id: requested.id };
});

/**
 * "Delete my memory": the person's memory files with their whole history, their chats' notes
 * with theirs, and their exports (lib/erasure). Their own data only: the Actor decides whose.
 */
export const deleteMyMemoryAction = action({ input: z.object({}) }, async ({ actor }) => {
  const deleted = await deleteOwnMemory({ sql: getSql(), actor });
  revalidatePath("/settings/data");
  revalidatePath("/memory");
  revalidatePath("/files");
  return deleted;
});
