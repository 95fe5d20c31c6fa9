import http from "node:http";

/** What a streamed POST saw. */
export interface StreamedPostResult {
  /** The answer's status, or null when the connection ended without one. */
  status: number | null;
  headers: http.IncomingHttpHeaders;
  /** The answer's body (at most 64 KiB kept). */
  body: string;
  /** Bytes of the request body written before the answer arrived (or the connection ended). */
  sentBeforeAnswer: number;
  /** Bytes written in all. */
  sent: number;
  /** Milliseconds from the first byte sent to the answer's headers. */
  answerMs: number | null;
  /** The socket error seen after (or instead of) the answer, e.g. ECONNRESET when the server closed. */
  error: string | null;
}

/**
 * POSTs a body of `totalBytes` made on the fly (64 KiB chunks, never held whole) with
 * `Transfer-Encoding: chunked` and no Content-Length: a JSON object opening with `prefix` whose
 * string never ends. Stops writing as soon as the answer's headers arrive or the socket fails,
 * and resolves once the answer's body has been read (or the connection ended).
 */
export function postStreamedBody(options: {
  url: string;
  totalBytes: number;
  headers?: Record<string, string>;
  /** The body's first bytes; default `{"chatId":"c","message":"` (the rest is `x`). */
  prefix?: string;
}): Promise<StreamedPostResult> {
  const url = new URL(options.url);
  const filler = Buffer.alloc(64 * 1024, "x");
  return new Promise((resolve) => {
    let sent = 0;
    let sentBeforeAnswer: number | null = null;
    let answered = false;
    let settled = false;
    let started = 0;
    const result: StreamedPostResult = {
      status: null,
      headers: {},
      body: "",
      sentBeforeAnswer: 0,
      sent: 0,
      answerMs: null,
      error: null,
    };
    const finish = () => {
      if (settled) return;
      settled = true;
      result.sent = sent;
      result.sentBeforeAnswer = sentBeforeAnswer ?? sent;
      resolve(result);
    };
    const request = http.request({
      host: url.hostname,
      port: url.port,
      path: `${url.pathname}${url.search}`,
      method: "POST",
      agent: false,
      headers: { "Content-Type": "application/json", ...options.headers },
    });
    request.on("response", (response) => {
      answered = true;
      sentBeforeAnswer = sent;
      result.status = response.statusCode ?? null;
      result.headers = response.headers;
      result.answerMs = performance.now() - started;
      response.setEncoding("utf8");
      response.on("data", (text: string) => {
        if (result.body.length < 65_536) result.body += text;
      });
      response.on("end", () => {
        request.destroy();
        finish();
      });
      response.on("error", (error) => {
        result.error ??= (error as NodeJS.ErrnoException).code ?? error.message;
        finish();
      });
    });
    request.on("error", (error) => {
      result.error ??= (error as NodeJS.ErrnoException).code ?? error.message;
      // An error after the answer's headers: wait for the answer's end (or its own error).
      if (!answered) finish();
    });
    request.on("close", () => {
      if (!answered) finish();
    });
    const write = () => {
      while (!answered && !settled && sent < options.totalBytes) {
        const first =
          sent === 0 ? Buffer.from(options.prefix ?? '{"chatId":"c","message":"') : null;
        const chunk =
          first ?? filler.subarray(0, Math.min(filler.length, options.totalBytes - sent));
        sent += chunk.length;
        if (!request.write(chunk)) {
          request.once("drain", write);
          return;
        }
      }
      if (!answered && !settled) request.end();
    };
    started = performance.now();
    write();
  });
}
