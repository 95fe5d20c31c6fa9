import { cairn } from "@/lib/cairn";
import { checkReadiness } from "@/lib/observability/readiness";

export const dynamic = "force-dynamic";

/**
 * Readiness, for load balancers and orchestrators (docs/deploy.md): 200 when the database, the
 * migrations, the job queue and the spool folder are usable, 503 with the failed checks named
 * otherwise. Public like `/api/health` (the liveness check); it tells nothing beyond which
 * check failed.
 */
export async function GET() {
  const readiness = await checkReadiness(cairn());
  return Response.json(
    { status: readiness.ready ? "ready" : "not ready", checks: readiness.checks },
    { status: readiness.ready ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
