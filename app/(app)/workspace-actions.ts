"use server";

import { redirect } from "next/navigation";
import { switchWorkspace } from "@/lib/auth";

/**
 * Switches the session to another of the user's workspaces (from the header's form). A
 * workspace the user is not a member of changes nothing.
 */
export async function switchWorkspaceAction(
  input: FormData | { workspaceId?: unknown },
): Promise<void> {
  const workspaceId = input instanceof FormData ? input.get("workspaceId") : input?.workspaceId;
  const switched = await switchWorkspace(workspaceId);
  redirect(switched ? "/chat" : "/chat?workspace=unchanged");
}
