"use server";

import { revalidatePath } from "next/cache";
import { requireRole } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { saveWorkspaceSettings, workspaceSettingsSchema } from "@/lib/workspace-settings";

export type SettingsActionResult = { ok: true } | { ok: false; error: string };

export async function saveSettingsAction(input: unknown): Promise<SettingsActionResult> {
  const parsed = workspaceSettingsSchema.safeParse(input);
  const actor = await requireRole("admin");
  if (!parsed.success) {
    return {
      ok: false,
      error: parsed.error.issues
        .map((issue) => `${issue.path.join(".")}: ${issue.message}`)
        .join("; "),
    };
  }
  await saveWorkspaceSettings(getDb(), actor.workspaceId, parsed.data);
  revalidatePath("/admin/settings");
  return { ok: true };
}
