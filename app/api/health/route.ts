import { cairnConfig } from "@/lib/config";
import { pingDatabase } from "@/lib/db/health";

export const dynamic = "force-dynamic";

/** Liveness and database status. 200 when the database answers, 503 otherwise. Public by design. */
export async function GET() {
  const provider = cairnConfig().database.provider;
  try {
    await pingDatabase();
    return Response.json({ status: "ok", database: { provider, status: "up" } });
  } catch {
    return Response.json(
      { status: "degraded", database: { provider, status: "down" } },
      { status: 503 },
    );
  }
}
