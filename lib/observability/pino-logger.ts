import pino, { type DestinationStream, type LoggerOptions } from "pino";
import type { LogLevel } from "@/lib/config";
import type { Logger } from "@/lib/harness";

/**
 * Field names whose values are never written, at any depth we log: passwords, tokens, keys,
 * cookies, secrets. A line that would carry one shows `[redacted]` instead (docs/security.md).
 */
const SECRET_KEYS = [
  "password",
  "newPassword",
  "passwordHash",
  "token",
  "accessToken",
  "access_token",
  "refresh_token",
  "id_token",
  "apiKey",
  "api_key",
  "authorization",
  "cookie",
  "secret",
  "clientSecret",
  "client_secret",
];
const REDACT_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  'headers["authorization"]',
  'headers["cookie"]',
  '*.headers["authorization"]',
  '*.headers["cookie"]',
];

/** What `createLogger` needs: `CAIRN_LOG_LEVEL` and `CAIRN_LOG_FORMAT` (lib/config). */
export interface LoggerSettings {
  level: LogLevel;
  format: "json" | "pretty";
  /** Where lines go; default stdout. Tests pass a collector. */
  destination?: DestinationStream;
}

const LEVEL_NAMES: Record<number, string> = {
  10: "TRACE",
  20: "DEBUG",
  30: "INFO",
  40: "WARN",
  50: "ERROR",
  60: "FATAL",
};

/**
 * Development's readable lines: `12:00:01 WARN  message key=value …`, an error's stack below.
 * A destination rather than a pino transport: transports run in worker threads that Next's
 * server bundle cannot resolve.
 */
export function prettyDestination(out: { write(text: string): unknown }): DestinationStream {
  return {
    write(line: string) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const {
        level,
        time,
        msg,
        err,
        levelName: _name,
        service: _service,
        pid: _pid,
        hostname: _host,
        ...rest
      } = record;
      const clock = new Date(typeof time === "number" ? time : Date.now())
        .toISOString()
        .slice(11, 19);
      const name = (LEVEL_NAMES[Number(level)] ?? String(level)).padEnd(5);
      const fields = Object.entries(rest)
        .map(
          ([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`,
        )
        .join(" ");
      const error = err as { stack?: string; message?: string } | undefined;
      const stack = error ? `\n  ${error.stack ?? error.message ?? JSON.stringify(error)}` : "";
      out.write(`${clock} ${name} ${String(msg ?? "")}${fields ? ` ${fields}` : ""}${stack}\n`);
    },
  };
}

/**
 * The app's logger (pino): one JSON line per event in production, readable lines in development,
 * secrets redacted. `child({ requestId, turnId, workspaceId })` carries ids along.
 */
export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    level: settings.level,
    base: { service: "cairn" },
    redact: { paths: REDACT_PATHS, censor: "[redacted]" },
    serializers: {
      err: pino.stdSerializers.err,
      error: pino.stdSerializers.err,
      cause: (value: unknown) => (value instanceof Error ? pino.stdSerializers.err(value) : value),
    },
    formatters: { level: (label, number) => ({ level: number, levelName: label }) },
  };
  // Synchronous: a line written just before a crash is not lost in a buffer.
  const out = settings.destination ?? pino.destination({ dest: 1, sync: true });
  const logger = pino(options, settings.format === "pretty" ? prettyDestination(out) : out);
  return logger as unknown as Logger;
}
