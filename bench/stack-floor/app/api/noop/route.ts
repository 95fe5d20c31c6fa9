export const dynamic = "force-dynamic";

/** Next's own floor: a request that does nothing. */
export function POST() {
  return Response.json({ ok: true });
}
