import { getDb } from "@/lib/db";
import { getWorkspaceSettings, saveWorkspaceSettings, type WorkspaceSettingsValues } from "./index";

/** The admin settings page's queries, on the app's database. */

export function loadWorkspaceSettings(workspaceId: string): Promise<WorkspaceSettingsValues> {
  return getWorkspaceSettings(getDb(), workspaceId);
}

export function storeWorkspaceSettings(
  workspaceId: string,
  values: WorkspaceSettingsValues,
): Promise<void> {
  return saveWorkspaceSettings(getDb(), workspaceId, values);
}
