import { errorResponse } from "@/lib/app-error";
import { recordAuditEvent } from "@/lib/audit";
import { getActor } from "@/lib/auth";
import { readDataExport } from "@/lib/data-export";
import { HarnessNotFoundError } from "@/lib/harness";
import { RequestError } from "@/lib/request-error";
import { getSql } from "@/lib/sql-storage";

export const dynamic = "force-dynamic";

/**
 * GET a ready export of the signed-in person's data as a zip. Only its owner, in the workspace it
 * was made in, gets it; anything else (someone else's, expired, not ready, unknown) is a 404 that
 * says no more than that.
 */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }) {
  const actor = await getActor();
  if (!actor) return errorResponse(new RequestError("unauthenticated", "Sign in first."));
  const { id } = await context.params;
  const found = id.length <= 100 ? await readDataExport({ sql: getSql(), actor, id }) : null;
  if (!found) {
    return errorResponse(
      new HarnessNotFoundError({ surface: "export", message: "No such export." }),
    );
  }
  // Who took their data out, and when: its own statement (a download changes nothing else).
  await recordAuditEvent(getSql(), {
    workspaceId: actor.workspaceId,
    actorId: actor.userId,
    kind: "export.downloaded",
    target: { type: "export", id },
    details: { bytes: found.zip.length },
    via: "web",
  });
  const day = found.view.createdAt.toISOString().slice(0, 10);
  return new Response(new Uint8Array(found.zip), {
    headers: {
      "Content-Type": "application/zip",
      "Content-Length": String(found.zip.length),
      "Content-Disposition": `attachment; filename="cairn-my-data-${day}.zip"`,
      "Cache-Control": "private, no-store",
    },
  });
}
