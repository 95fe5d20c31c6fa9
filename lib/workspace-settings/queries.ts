import { getSql } from "@/lib/sql-storage/sql";
import { getWorkspaceSettings, saveWorkspaceSettings, type WorkspaceSettingsValues } from "./index";

/** The admin settings page's queries, on the app's database. */

export function loadWorkspaceSettings(workspaceId: string): Promise<WorkspaceSettingsValues> {
  return getWorkspaceSettings(getSql(), workspaceId);
}

export function storeWorkspaceSettings(
  workspaceId: string,
  values: WorkspaceSettingsValues,
): Promise<void> {
  return saveWorkspaceSettings(getSql(), workspaceId, values);
}
