/**
 * The logger port: what the core and the app log through (pino's call shape, so a pino logger
 * is one). `fields` carries structured context (`err` for an error, ids); `message` is a short
 * sentence. Hosts pass theirs (`HarnessDefinition.logger`); the default writes JSON lines to
 * stderr, so nothing the core reports is ever swallowed.
 */
export interface Logger {
  error(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  debug(fields: Record<string, unknown>, message: string): void;
  /** A logger that adds `bindings` (a request id, a turn id, …) to every line. */
  child(bindings: Record<string, unknown>): Logger;
}

function errorFields(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  return { type: value.name, message: value.message, stack: value.stack };
}

/** JSON lines on stderr: the core's default when the host gives no logger. */
export function createStderrLogger(bindings: Record<string, unknown> = {}): Logger {
  const write =
    (level: string) =>
    (fields: Record<string, unknown>, message: string): void => {
      const line: Record<string, unknown> = { level, time: Date.now(), ...bindings };
      for (const [key, value] of Object.entries(fields)) line[key] = errorFields(value);
      line.msg = message;
      process.stderr.write(`${JSON.stringify(line)}\n`);
    };
  return {
    error: write("error"),
    warn: write("warn"),
    info: write("info"),
    debug: () => undefined,
    child: (more) => createStderrLogger({ ...bindings, ...more }),
  };
}

/** A logger that drops everything (tests that assert on nothing logged use their own). */
export const silentLogger: Logger = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  child: () => silentLogger,
};
