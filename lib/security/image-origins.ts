import { cairnConfig } from "@/lib/config/process-config";
import { parseOriginList } from "./origin-list";
import { createStderrLogger } from "@/lib/harness";

/**
 * Origins an admin allows images from, besides the app itself and `data:`/`blob:` URLs:
 * `CAIRN_IMAGE_ORIGINS`, a space- or comma-separated list of `https://host[:port]` origins.
 * Entries that are not a bare http(s) origin go to `warn` and are left out (a path would widen
 * or narrow the CSP in ways the admin did not mean); the configuration (lib/config) turns such an
 * entry into an error that stops the start.
 */
export function parseImageOrigins(
  value: string | undefined,
  warn: (message: string) => void = (message) => createStderrLogger().warn({}, message),
): string[] {
  return parseOriginList(value, "CAIRN_IMAGE_ORIGINS", warn, "https://images.example.com");
}

/** `CAIRN_IMAGE_ORIGINS` from the process's configuration, parsed once (the proxy asks on every request). */
export function configuredImageOrigins(): readonly string[] {
  return cairnConfig().imageOrigins;
}
