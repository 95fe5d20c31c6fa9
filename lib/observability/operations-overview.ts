import type { OperationsOverview } from "@/components/admin/operations-overview";
import type { CairnConfig } from "@/lib/config";

/** The admin page's view of sign-in and observability settings: no secret leaves here. */
export function operationsOverviewOf(config: CairnConfig): OperationsOverview {
  const { oidc } = config;
  return {
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
