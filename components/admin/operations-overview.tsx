import { TermList } from "@/components/ui/term-list";

/** What the sign-in and observability settings are, as the admin page shows them (no secrets). */
export interface OperationsOverview {
  /** Where single sign-on comes from: the `CAIRN_OIDC_*` variables or Admin → Settings. */
  oidcSource: "environment" | "settings" | null;
  /** `null`: single sign-on is off. */
  oidc: {
    name: string;
    issuer: string;
    clientId: string;
    allowedDomains: readonly string[];
    workspace: string | null;
    defaultRole: string;
    only: boolean;
    breakGlassEmail: string | null;
    groupsClaim: string | null;
  } | null;
  github: boolean;
  metrics: boolean;
  traces: boolean;
  traceContent: boolean;
}

/**
 * Sign-in methods, single sign-on and observability as the server is configured, read-only
 * (environment variables; never the client secret or the metrics token).
 */
export function OperationsOverviewCard({ overview }: { overview: OperationsOverview }) {
  const { oidc } = overview;
  const rows: [string, string][] = [
    [
      "Password sign-in",
      oidc?.only
        ? `off (OIDC only), except the break-glass admin ${oidc.breakGlassEmail ?? "(none set)"}`
        : "on",
    ],
    ["GitHub sign-in", overview.github ? "on (existing accounts)" : "off"],
    [
      "Single sign-on",
      oidc
        ? `on — "Sign in with ${oidc.name}" (${overview.oidcSource === "settings" ? "saved on this page" : "CAIRN_OIDC_* variables"})`
        : "off",
    ],
    ...(oidc
      ? ([
          ["Issuer", oidc.issuer],
          ["Client id", oidc.clientId],
          ["Client secret", "set (not shown)"],
          [
            "Joins automatically",
            oidc.allowedDomains.length > 0
              ? `${oidc.allowedDomains.join(", ")} → ${overview.oidcSource === "settings" ? "the workspace it was saved from" : (oidc.workspace ?? "?")} as ${oidc.defaultRole}`
              : "nobody (invite only)",
          ],
          ["Groups → roles", oidc.groupsClaim ? `from the "${oidc.groupsClaim}" claim` : "off"],
        ] as [string, string][])
      : []),
    [
      "Metrics",
      overview.metrics ? "on: /api/metrics (bearer token)" : "off (CAIRN_METRICS_TOKEN unset)",
    ],
    [
      "Traces",
      overview.traces
        ? `on${overview.traceContent ? ", with message and tool content" : ", without content"}`
        : "off (OTEL_EXPORTER_OTLP_ENDPOINT unset)",
    ],
  ];
  return (
    <section className="max-w-lg space-y-2" data-testid="operations-overview">
      <h2 className="font-medium">Sign-in and monitoring</h2>
      <p className="text-muted-foreground text-sm">
        As the server runs now. Monitoring and &ldquo;OIDC only&rdquo; come from its environment
        (CAIRN_METRICS_TOKEN, OTEL_EXPORTER_OTLP_ENDPOINT, CAIRN_OIDC_*): change them there and
        restart Cairn. See the README&apos;s &ldquo;Operating Cairn&rdquo;.
      </p>
      <TermList rows={rows} testIdPrefix="operations" />
    </section>
  );
}
