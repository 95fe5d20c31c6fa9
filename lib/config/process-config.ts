import { processSlot } from "@/lib/cairn/process-slot";
import { loadConfig } from "./load-config";
import type { CairnConfig } from "./schema";

/**
 * The process's configuration: `loadConfig(process.env)`, parsed on first use and kept on the
 * process's slot (one parse per process, never per request). Throws `ConfigError` on a bad value:
 * the server's start (`instrumentation.ts`) and the CLI call it first, so a bad value stops them.
 * The process's Cairn (`cairn()`, lib/cairn) is built from it; a test's installed instance
 * (`installCairn`) replaces both. Here rather than in lib/cairn so that the proxy can read it
 * without bundling the database clients.
 */
export function cairnConfig(): CairnConfig {
  const slot = processSlot();
  return (slot.config ??= loadConfig(process.env));
}
