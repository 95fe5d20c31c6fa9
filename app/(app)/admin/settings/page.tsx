import { ModelOverviewCard } from "@/components/admin/model-overview";
import { OperationsOverviewCard } from "@/components/admin/operations-overview";
import { SettingsForm } from "@/components/admin/settings-form";
import { getModelOverview } from "@/lib/ai";
import { requireRole } from "@/lib/auth";
import { cairnConfig } from "@/lib/config";
import { operationsOverviewOf } from "@/lib/observability/operations-overview";
import { loadWorkspaceSettings } from "@/lib/workspace-settings/queries";

export const dynamic = "force-dynamic";

export default async function SettingsPage() {
  const actor = await requireRole("admin");
  const [settings, model] = await Promise.all([
    loadWorkspaceSettings(actor.workspaceId),
    getModelOverview(),
  ]);
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Workspace settings</h1>
        <p className="text-muted-foreground text-sm">
          How much of the harness goes into each prompt, and when the harness refines itself.
        </p>
      </div>
      <SettingsForm initial={settings} />
      <ModelOverviewCard overview={model} />
      <OperationsOverviewCard overview={operationsOverviewOf(cairnConfig())} />
    </div>
  );
}
