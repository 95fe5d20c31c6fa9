import type { OperationsOverview } from "@/components/admin/operations-overview";
import type { CairnConfig, OidcConfig } from "@/lib/config";

/**
 * The admin page's view of sign-in and observability settings: no secret leaves here. `current`
 * is the single sign-on in force (the variables', else the one saved on Admin → Settings).
 */
export function operationsOverviewOf(
  config: CairnConfig,
  current: OidcConfig | null = config.oidc,
): OperationsOverview {
  const oidc = current;
  return {
    oidcSource: oidc === null ? null : config.oidc !== null ? "environment" : "settings",
    oidc: oidc
      ? {
          name: oidc.name,
          issuer: oidc.issuer,
          clientId: oidc.clientId,
          allowedDomains: oidc.allowedDomains,
          workspace: oidc.workspace,
          defaultRole: oidc.defaultRole,
          only: oidc.only,
          breakGlassEmail: oidc.breakGlassEmail,
          groupsClaim: oidc.groupsClaim,
        }
      : null,
    github: config.github !== null,
    metrics: config.metricsToken !== null,
    traces: config.tracing.endpoint !== null,
    traceContent: config.tracing.content,
  };
}
