import { ModelOverviewCard } from "@/components/admin/model-overview";
import { ModelSettingsForm } from "@/components/admin/model-settings-form";
import { OperationsOverviewCard } from "@/components/admin/operations-overview";
import { SearchModeCard } from "@/components/admin/search-mode";
import { SettingsForm } from "@/components/admin/settings-form";
import { getModelOverview } from "@/lib/ai";
import { requireRole } from "@/lib/auth";
import { cairn } from "@/lib/cairn";
import { cairnConfig } from "@/lib/config";
import { getDb } from "@/lib/db";
import { readModelSettingsView } from "@/lib/model-settings";
import { operationsOverviewOf } from "@/lib/observability/operations-overview";
import { loadWorkspaceSettings } from "@/lib/workspace-settings/queries";

export const dynamic = "force-dynamic";

export const metadata = { title: "Workspace settings" };

export default async function SettingsPage() {
  const actor = await requireRole("admin");
  const [settings, model, savedModel, searchMode] = await Promise.all([
    loadWorkspaceSettings(actor.workspaceId),
    getModelOverview({ workspaceId: actor.workspaceId }),
    readModelSettingsView(getDb(), actor.workspaceId),
    cairn().search.mode(actor.workspaceId),
  ]);
  const envOverride = cairn().modelSettings.status !== "unconfigured";
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Workspace settings</h1>
        <p className="text-muted-foreground text-sm">
          The model chats use, how much of the harness goes into each prompt, and when the harness
          refines itself.
        </p>
      </div>
      <ModelSettingsForm saved={savedModel} envOverride={envOverride} />
      <ModelOverviewCard overview={model} />
      <SearchModeCard mode={searchMode} />
      <SettingsForm initial={settings} />
      <OperationsOverviewCard overview={operationsOverviewOf(cairnConfig())} />
    </div>
  );
}
