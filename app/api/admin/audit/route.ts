import { auditCsvHeader, auditCsvLine, auditFiltersOf, auditQuerySchema } from "@/lib/audit";
import { auditEventsForCsv } from "@/lib/audit/queries";
import { errorResponse } from "@/lib/app-error";
import { getActor } from "@/lib/auth";
import { HarnessForbiddenError } from "@/lib/harness";
import { RequestError } from "@/lib/request-error";
import { firstSearchValues } from "@/lib/search-params";

export const dynamic = "force-dynamic";

/**
 * GET the workspace's audit log as CSV, with the page's filters (`person`, `kind`, `from`,
 * `to`): admins of the workspace only (401 signed out, 403 otherwise). Streamed a thousand rows
 * at a time by keyset, so 100,000 rows never sit in memory at once.
 */
export async function GET(request: Request) {
  const actor = await getActor();
  if (!actor) return errorResponse(new RequestError("unauthenticated", "Sign in first."));
  if (actor.role !== "admin") {
    return errorResponse(
      new HarnessForbiddenError({ message: "Only admins can export the audit log." }),
    );
  }
  const url = new URL(request.url);
  const query = auditQuerySchema.parse(firstSearchValues(Object.fromEntries(url.searchParams)));
  const events = auditEventsForCsv({
    workspaceId: actor.workspaceId,
    filters: auditFiltersOf(query),
  });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(auditCsvHeader));
    },
    async pull(controller) {
      const next = await events.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(auditCsvLine(next.value)));
    },
    async cancel() {
      await events.return(undefined);
    },
  });
  const day = new Date().toISOString().slice(0, 10);
  return new Response(body, {
    headers: {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="cairn-audit-${day}.csv"`,
      "Cache-Control": "private, no-store",
    },
  });
}
