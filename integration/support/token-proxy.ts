import http from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback HTTP proxy that adds a bearer token; see `startTokenProxy`. */
export interface TokenProxy {
  /** `http://127.0.0.1:<port>`, to put in front of a path of the target. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Forwards every request to `target` unchanged — method, path, body and every header, `Host` and
 * `Origin` included — adding `Authorization: Bearer <token>` when the request has none. For test
 * clients that cannot send a header of their own: the MCP conformance suite's server scenarios
 * connect without one, and /api/mcp answers 401 to that.
 */
export async function startTokenProxy(options: {
  target: string;
  token: string;
}): Promise<TokenProxy> {
  const upstream = new URL(options.target);
  const server = http.createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    headers.authorization ??= `Bearer ${options.token}`;
    const forwarded = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", (error) => {
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" });
      outgoing.end(`token proxy: ${error.message}`);
    });
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
