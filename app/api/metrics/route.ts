import { createHash, timingSafeEqual } from "node:crypto";
import { cairn } from "@/lib/cairn";

export const dynamic = "force-dynamic";

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/**
 * Prometheus metrics of this instance (docs/observability.md). Off — 404, as if it did not
 * exist — unless `CAIRN_METRICS_TOKEN` is set; then only `Authorization: Bearer <token>` gets
 * them (compared in constant time), anything else 401.
 */
export async function GET(request: Request) {
  const { config, metrics } = cairn();
  if (!config.metricsToken) return new Response("Not found", { status: 404 });
  const header = request.headers.get("authorization") ?? "";
  const given = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? "";
  if (!timingSafeEqual(digest(given), digest(config.metricsToken))) {
    return Response.json(
      { error: "Send the metrics token as Authorization: Bearer <CAIRN_METRICS_TOKEN>." },
      { status: 401, headers: { "www-authenticate": 'Bearer realm="cairn-metrics"' } },
    );
  }
  return new Response(await metrics.registry.metrics(), {
    headers: { "content-type": metrics.registry.contentType, "cache-control": "no-store" },
  });
}
