import { describe, expect, it } from "vitest";
import { createLogger } from "./pino-logger";

function collector() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe("createLogger", () => {
  it("writes one JSON line per event with level, message, fields and carried ids", () => {
    const out = collector();
    const logger = createLogger({ level: "info", format: "json", destination: out.destination });
    const turn = logger.child({ requestId: "req-1", turnId: "turn-1", workspaceId: "ws-1" });
    turn.info({ status: "completed" }, "turn completed");
    turn.debug({}, "below the level");
    expect(out.lines).toHaveLength(1);
    const line = JSON.parse(out.lines[0]!) as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 30,
      levelName: "info",
      msg: "turn completed",
      requestId: "req-1",
      turnId: "turn-1",
      workspaceId: "ws-1",
      status: "completed",
      service: "cairn",
    });
    expect(typeof line.time).toBe("number");
  });

  it("serializes errors with their stack", () => {
    const out = collector();
    const logger = createLogger({ level: "info", format: "json", destination: out.destination });
    logger.error({ err: new Error("the disk is full") }, "a commit failed");
    const line = JSON.parse(out.lines[0]!) as { err: { message: string; stack: string } };
    expect(line.err.message).toBe("the disk is full");
    expect(line.err.stack).toContain("logger.test.ts");
  });

  it("never writes secrets: passwords, tokens, keys, cookies and authorization headers", () => {
    const out = collector();
    const logger = createLogger({ level: "debug", format: "json", destination: out.destination });
    logger.warn(
      {
        password: "hunter2-password",
        token: "cairn_pat_abcdef123456",
        apiKey: "sk-live-123",
        request: { headers: { authorization: "Bearer metrics-token", cookie: "session=abc" } },
        account: { access_token: "at-1", id_token: "it-1", clientSecret: "cs-1" },
      },
      "a request",
    );
    const text = out.lines.join("");
    for (const secret of [
      "hunter2-password",
      "cairn_pat_abcdef123456",
      "sk-live-123",
      "metrics-token",
      "session=abc",
      "at-1",
      "it-1",
      "cs-1",
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain("[redacted]");
  });

  it("writes readable lines in the pretty format", () => {
    const out = collector();
    const logger = createLogger({ level: "info", format: "pretty", destination: out.destination });
    logger.child({ turnId: "turn-9" }).warn({ attempt: 2 }, "recording a turn failed; retrying");
    expect(out.lines[0]).toMatch(
      /^\d\d:\d\d:\d\d WARN  recording a turn failed; retrying turnId=turn-9 attempt=2\n$/,
    );
  });
});
