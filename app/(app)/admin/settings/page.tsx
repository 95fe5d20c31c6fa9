import { ModelOverviewCard } from "@/components/admin/model-overview";
import { headers } from "next/headers";
import { ModelSettingsForm } from "@/components/admin/model-settings-form";
import { OidcSettingsForm } from "@/components/admin/oidc-settings-form";
import { OperationsOverviewCard } from "@/components/admin/operations-overview";
import { SearchModeCard } from "@/components/admin/search-mode";
import { RetentionForm } from "@/components/admin/retention-form";
import { SettingsForm } from "@/components/admin/settings-form";
import { getWorkspaceName } from "@/lib/accounts/queries";
import { getModelOverview } from "@/lib/ai";
import { currentOidcConfig, requireRole } from "@/lib/auth";
import { cairn } from "@/lib/cairn";
import { cairnConfig } from "@/lib/config";
import { getRetentionSettings } from "@/lib/erasure";
import { getSql } from "@/lib/sql-storage/sql";
import { readModelSettingsView } from "@/lib/model-settings";
import { mayManageOidcSettings, readOidcSettingsView } from "@/lib/oidc-settings";
import { operationsOverviewOf } from "@/lib/observability/operations-overview";
import { loadWorkspaceSettings } from "@/lib/workspace-settings/queries";

export const dynamic = "force-dynamic";

export const metadata = { title: "Workspace settings" };

export default async function SettingsPage() {
  const actor = await requireRole("admin");
  const [settings, model, savedModel, managesOidc, oidc, searchMode, retention] = await Promise.all(
    [
      loadWorkspaceSettings(actor.workspaceId),
      getModelOverview({ workspaceId: actor.workspaceId }),
      readModelSettingsView(getSql(), actor.workspaceId),
      mayManageOidcSettings(getSql(), actor),
      currentOidcConfig(),
      cairn().search.mode(actor.workspaceId),
      getRetentionSettings({ sql: getSql(), workspaceId: actor.workspaceId }),
    ],
  );
  const envOverride = cairn().modelSettings.status !== "unconfigured";
  const config = cairnConfig();
  const [savedOidc, workspaceName] = managesOidc
    ? await Promise.all([readOidcSettingsView(getSql()), getWorkspaceName(actor.workspaceId)])
    : [null, null];
  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">Workspace settings</h1>
        <p className="text-muted-foreground text-sm">
          The model chats use, how much of the harness goes into each prompt, when the harness
          refines itself, and how people sign in.
        </p>
      </div>
      <ModelSettingsForm saved={savedModel} envOverride={envOverride} />
      <ModelOverviewCard overview={model} />
      <SearchModeCard mode={searchMode} />
      <SettingsForm initial={settings} serverLimits={config.dirLimits} />
      <RetentionForm initial={retention} />
      {managesOidc && workspaceName ? (
        <OidcSettingsForm
          saved={savedOidc}
          envOverride={config.oidc !== null}
          redirectUri={`${await publicOrigin()}/api/auth/callback/oidc`}
          workspaceName={workspaceName}
        />
      ) : null}
      <OperationsOverviewCard overview={operationsOverviewOf(config, oidc)} />
    </div>
  );
}

/** The address people reach Cairn at: `AUTH_URL` when set (as Auth.js uses it), else this request's. */
async function publicOrigin(): Promise<string> {
  const configured = process.env.AUTH_URL ?? process.env.NEXTAUTH_URL;
  if (configured && URL.canParse(configured)) return new URL(configured).origin;
  const requestHeaders = await headers();
  const host = requestHeaders.get("x-forwarded-host") ?? requestHeaders.get("host") ?? "localhost";
  const protocol = requestHeaders.get("x-forwarded-proto") ?? "http";
  return `${protocol}://${host}`;
}
