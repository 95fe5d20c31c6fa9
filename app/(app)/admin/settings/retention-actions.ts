"use server";

import { revalidatePath } from "next/cache";
import { action } from "@/lib/actions";
import { retentionSettingsSchema, saveRetentionSettings } from "@/lib/erasure";
import { getSql } from "@/lib/sql-storage/sql";

/** Chat and audit-log retention of the admin's workspace (null days: keep forever). */
export const saveRetentionAction = action(
  { input: retentionSettingsSchema, role: "admin" },
  async ({ input, actor }) => {
    await saveRetentionSettings({
      sql: getSql(),
      workspaceId: actor.workspaceId,
      by: actor.userId,
      values: input,
    });
    revalidatePath("/admin/settings");
  },
);
