/**
 * A loopback OTLP/HTTP receiver (JSON encoding) that keeps the spans it is sent, for the
 * tracing test: the app exports to `POST /v1/traces`; tests read `GET /__spans` and clear with
 * `POST /__reset`. Only the standard library is used.
 *
 *     node --import tsx e2e/support/otlp-receiver.ts --port 3197
 */
import { createServer } from "node:http";
import { pathToFileURL } from "node:url";

/** One received span, flattened from OTLP JSON. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  attributes: Record<string, unknown>;
  scope: string;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: OtlpValue[] };
}

function valueOf(value: OtlpValue | undefined): unknown {
  if (!value) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return null;
}

/** The spans of an OTLP JSON export request. */
export function spansOf(body: unknown): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  const resourceSpans = (body as { resourceSpans?: unknown[] }).resourceSpans ?? [];
  for (const resource of resourceSpans as Array<{ scopeSpans?: unknown[] }>) {
    for (const scope of (resource.scopeSpans ?? []) as Array<{
      scope?: { name?: string };
      spans?: unknown[];
    }>) {
      for (const span of (scope.spans ?? []) as Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: Array<{ key: string; value: OtlpValue }>;
      }>) {
        spans.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || null,
          name: span.name,
          attributes: Object.fromEntries(
            (span.attributes ?? []).map((attribute) => [attribute.key, valueOf(attribute.value)]),
          ),
          scope: scope.scope?.name ?? "",
        });
      }
    }
  }
  return spans;
}

export async function startOtlpReceiver(port: number) {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      if (request.method === "POST" && request.url === "/v1/traces") {
        bodies.push(text);
        try {
          spans.push(...spansOf(JSON.parse(text)));
        } catch {
          // Not JSON (protobuf): kept raw only.
        }
        response.writeHead(200, { "content-type": "application/json" }).end("{}");
      } else if (request.url === "/__spans") {
        response
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ spans, raw: bodies }));
      } else if (request.method === "POST" && request.url === "/__reset") {
        spans.length = 0;
        bodies.length = 0;
        response.writeHead(204).end();
      } else if (request.url === "/__health") {
        response.writeHead(200).end("ok");
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  return { spans, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const index = process.argv.indexOf("--port");
  const port = Number(index === -1 ? 3197 : process.argv[index + 1]);
  await startOtlpReceiver(port);
  process.stdout.write(`otlp receiver on http://127.0.0.1:${port}\n`);
}
