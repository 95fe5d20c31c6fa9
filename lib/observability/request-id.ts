import { randomUUID } from "node:crypto";

const SAFE_ID = /^[\w.:-]{1,100}$/;

/**
 * The request's id for log lines: the reverse proxy's `X-Request-Id` when it is a plain token
 * (so a line in the proxy's log and one in Cairn's match), else a fresh UUID. Anything else a
 * client sent is ignored — it would let them write into the logs.
 */
export function requestIdOf(request: Request): string {
  const given = request.headers.get("x-request-id");
  return given && SAFE_ID.test(given) ? given : randomUUID();
}
