import { cairnConfig } from "@/lib/config/process-config";
import { parseOriginList } from "./origin-list";
import { requestHost, type RefusedRequest } from "./request-guards";
import { createStderrLogger } from "@/lib/harness";

/**
 * The DNS-rebinding guard of the MCP endpoint (the MCP spec's Streamable HTTP transport, "Security
 * Warning": servers MUST validate `Origin` and answer 403 when it is present and invalid).
 *
 * A rebinding page on `http://evil.example:3000` whose name now resolves to this server sends
 * `Host: evil.example:3000` and `Origin: http://evil.example:3000` — the browser thinks it is
 * talking to its own origin, so comparing `Origin` with `Host` alone proves nothing. Both are
 * checked against the names the server is known by:
 *
 * - **Host** (`X-Forwarded-Host` first, as everywhere in the app, else `Host`, else — a `Request`
 *   built in code — the URL's host) must be a loopback
 *   name (`localhost`, `*.localhost`, `127.0.0.0/8`, `[::1]`, any port) or the host of an allowed
 *   origin. With no allowed origins configured that leaves loopback only.
 * - **Origin**, when present (browsers send it on every POST), must be an allowed origin or the
 *   request's own origin (same host as the — already checked — Host). `null` is refused.
 *
 * Clients that are not browsers (Claude Code, Cursor, the stdio bridge) send no `Origin` and pass
 * on the Host check alone.
 */
export function refuseRebindingRequest(
  request: Pick<Request, "headers" | "url">,
  allowedOrigins: readonly string[],
): RefusedRequest | null {
  const host = (requestHost(request.headers) ?? urlHost(request.url)).trim().toLowerCase();
  const parsedHost = parseHost(host);
  if (!parsedHost) {
    return { status: 403, error: "Refused: the request has no valid Host header." };
  }
  if (!isLoopbackHostname(parsedHost.hostname) && !hostIsAllowed(parsedHost, allowedOrigins)) {
    return {
      status: 403,
      error: `Refused: "${host}" is not a host this MCP server answers on. If it is this server's address, an admin adds its origin (e.g. https://${host}) to CAIRN_MCP_ALLOWED_ORIGINS.`,
    };
  }
  const origin = request.headers.get("origin");
  if (origin === null) return null;
  const parsedOrigin = parseOrigin(origin);
  if (
    parsedOrigin &&
    (allowedOrigins.includes(parsedOrigin.origin) || sameHost(parsedOrigin, parsedHost))
  ) {
    return null;
  }
  return {
    status: 403,
    error: `Refused: requests from the origin "${origin}" are not allowed. Browser-based MCP clients need their origin in CAIRN_MCP_ALLOWED_ORIGINS.`,
  };
}

function urlHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

interface ParsedHost {
  hostname: string;
  /** The explicit port, or null when the Host header names none. */
  port: string | null;
}

function parseHost(host: string): ParsedHost | null {
  const match = /^(\[[0-9a-f:.]+\]|[^\s:/?#@[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match) return null;
  let hostname: string;
  try {
    // Normalizes IPv4 spellings (127.1, 0x7f.0.0.1) and IPv6 the way browsers and URL do.
    hostname = new URL(`http://${match[1]}`).hostname;
  } catch {
    return null;
  }
  return { hostname, port: match[2] ?? null };
}

function parseOrigin(origin: string): URL | null {
  try {
    const url = new URL(origin);
    return url.protocol === "http:" || url.protocol === "https:" ? url : null;
  } catch {
    return null;
  }
}

const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

function effectivePort(url: URL): string {
  return url.port || DEFAULT_PORTS[url.protocol] || "";
}

/** The Host names an allowed origin's host; a Host without a port matches a default-port origin. */
function hostIsAllowed(host: ParsedHost, allowedOrigins: readonly string[]): boolean {
  return allowedOrigins.some((allowed) => {
    const url = parseOrigin(allowed);
    if (!url || url.hostname !== host.hostname) return false;
    return host.port === null ? url.port === "" : host.port === effectivePort(url);
  });
}

function sameHost(origin: URL, host: ParsedHost): boolean {
  if (origin.hostname !== host.hostname) return false;
  return host.port === null ? origin.port === "" : host.port === effectivePort(origin);
}

/** `localhost` and its subdomains (RFC 6761), `127.0.0.0/8`, `[::1]`. */
export function isLoopbackHostname(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname) ||
    hostname === "[::1]"
  );
}

/** The variables the MCP endpoint's allowed origins come from. */
export interface McpOriginEnv {
  CAIRN_MCP_ALLOWED_ORIGINS?: string;
  AUTH_URL?: string;
  NEXTAUTH_URL?: string;
}

/**
 * The origins the MCP endpoint accepts besides loopback: `CAIRN_MCP_ALLOWED_ORIGINS` (a space- or
 * comma-separated list of bare `https://host[:port]` origins; anything else is ignored with a
 * warning) and the origin of `AUTH_URL` / `NEXTAUTH_URL` (the app's public address, when set;
 * a path on it is dropped).
 */
export function parseMcpAllowedOrigins(
  env: McpOriginEnv,
  warn: (message: string) => void = (message) => createStderrLogger().warn({}, message),
): string[] {
  const origins = parseOriginList(env.CAIRN_MCP_ALLOWED_ORIGINS, "CAIRN_MCP_ALLOWED_ORIGINS", warn);
  for (const value of [env.AUTH_URL, env.NEXTAUTH_URL]) {
    const url = value ? parseOrigin(value.trim()) : null;
    if (url && !origins.includes(url.origin)) origins.push(url.origin);
  }
  return origins;
}

/** The origins `/api/mcp` accepts besides loopback, from the process's configuration (parsed once). */
export function mcpAllowedOriginsFromEnv(): readonly string[] {
  return cairnConfig().mcpAllowedOrigins;
}
