import { SettingsForm } from "@/components/admin/settings-form";
import { requireRole } from "@/lib/auth";
import { loadWorkspaceSettings } from "@/lib/workspace-settings/queries";

export const dynamic = "force-dynamic";

export default async function SettingsPage() {
  const actor = await requireRole("admin");
  const settings = await loadWorkspaceSettings(actor.workspaceId);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Workspace settings</h1>
        <p className="text-muted-foreground text-sm">
          How much of the harness goes into each prompt, and when the harness refines itself.
        </p>
      </div>
      <SettingsForm initial={settings} />
    </div>
  );
}
