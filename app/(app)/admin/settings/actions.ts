"use server";

import { revalidatePath } from "next/cache";
import { action } from "@/lib/actions";
import { workspaceSettingsSchema } from "@/lib/workspace-settings";
import { storeWorkspaceSettings } from "@/lib/workspace-settings/queries";

export const saveSettingsAction = action(
  { input: workspaceSettingsSchema, role: "admin" },
  async ({ input, actor }) => {
    await storeWorkspaceSettings(actor.workspaceId, input);
    revalidatePath("/admin/settings");
  },
);
