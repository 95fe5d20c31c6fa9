/**
 * A POST to the MCP endpoint as an MCP client sends it: the bearer `token`, a JSON-RPC body, and
 * JSON or an event stream accepted; `headers` on top. `body` may be a stream (sent half-duplex).
 */
export function mcpPost(options: {
  token: string;
  body: BodyInit;
  headers?: Record<string, string>;
  url?: string;
}): Request {
  return new Request(options.url ?? "http://localhost/api/mcp", {
    method: "POST",
    headers: {
      authorization: `Bearer ${options.token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...options.headers,
    },
    body: options.body,
    duplex: "half",
  } as RequestInit & { duplex: "half" });
}
