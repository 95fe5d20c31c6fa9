"use server";

import { revalidatePath } from "next/cache";
import { action, fail } from "@/lib/actions";
import { cairn } from "@/lib/cairn";
import {
  dirLimitsOverServer,
  dirLimitValuesOf,
  workspaceSettingsSchema,
} from "@/lib/workspace-settings";
import { storeWorkspaceSettings } from "@/lib/workspace-settings/queries";

export const saveSettingsAction = action(
  { input: workspaceSettingsSchema, role: "admin" },
  async ({ input, actor }) => {
    // The server's dir limits (CAIRN_DIR_MAX_*) are the most a workspace may set (decision 0062).
    const root = cairn();
    const over = dirLimitsOverServer(input, root.config.dirLimits);
    if (over.length > 0) fail("validation:input", over.join(" "));
    await storeWorkspaceSettings(actor.workspaceId, input);
    // This instance's turns use the new limits at once; others within a few seconds.
    root.workspaceDirLimits.remember(actor.workspaceId, dirLimitValuesOf(input));
    revalidatePath("/admin/settings");
  },
);
