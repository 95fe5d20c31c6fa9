import { getDb, resolveDatabaseTarget } from "@/lib/db";

export const dynamic = "force-dynamic";

/** Liveness and database status. 200 when the database answers, 503 otherwise. Public by design. */
export async function GET() {
  const provider = resolveDatabaseTarget().provider;
  try {
    await getDb().$queryRawUnsafe("SELECT 1");
    return Response.json({ status: "ok", database: { provider, status: "up" } });
  } catch {
    return Response.json(
      { status: "degraded", database: { provider, status: "down" } },
      { status: 503 },
    );
  }
}
