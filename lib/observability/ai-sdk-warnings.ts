import type { LogWarningsFunction, Warning } from "ai";
import type { Logger } from "@/lib/harness";

/** Distinct warnings remembered per process; past it, repeats are logged again. */
const MAX_REMEMBERED = 1_000;

/** One line of what a warning says, as the AI SDK's own console line words it. */
export function aiSdkWarningText(warning: Warning): string {
  switch (warning.type) {
    case "unsupported":
    case "compatibility": {
      const what =
        warning.type === "unsupported" ? "is not supported" : "is used in a compatibility mode";
      return `the feature "${warning.feature}" ${what}${warning.details ? `: ${warning.details}` : ""}`;
    }
    case "deprecated":
      return `deprecated: "${warning.setting}": ${warning.message}`;
    default:
      return "message" in warning && typeof warning.message === "string"
        ? warning.message
        : JSON.stringify(warning);
  }
}

/**
 * The AI SDK's warnings (a provider ignoring a setting, a deprecation) as the app's log lines:
 * by default the SDK writes them to stderr as plain text through `process.emitWarning`, outside
 * the JSON log, and again on every call. Here each distinct warning of a provider's model is one
 * `warn` line, once per process.
 */
export function aiSdkWarningLogger(logger: Logger): LogWarningsFunction {
  const seen = new Set<string>();
  return ({ warnings, provider, model }) => {
    for (const warning of warnings) {
      const text = aiSdkWarningText(warning);
      const key = JSON.stringify([provider ?? null, model ?? null, text]);
      if (seen.has(key)) continue;
      if (seen.size < MAX_REMEMBERED) seen.add(key);
      logger.warn({ provider, model, warning: warning.type }, `model call warning: ${text}`);
    }
  };
}

/** Sends the AI SDK's warnings to `logger` (see `aiSdkWarningLogger`) from now on. */
export function installAiSdkWarningLogger(logger: Logger): void {
  globalThis.AI_SDK_LOG_WARNINGS = aiSdkWarningLogger(logger);
}
