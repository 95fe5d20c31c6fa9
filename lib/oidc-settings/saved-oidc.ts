import type { OidcConfig } from "@/lib/config";
import type { Logger } from "@/lib/harness";
import type { ModelKeyring } from "@/lib/model-settings";
import type { SqlExecutor } from "@/lib/sql-storage/sql";
import { readSavedOidcConfig } from "./oidc-settings-store";

/**
 * The single sign-on saved on Admin → Settings, per process. Auth.js asks for its providers on
 * every session check, so the row is read at most once per `ttlMs` (default 5 s): a save on this
 * instance applies at once (`forget`), on other instances within the interval. When the database
 * cannot be read the last known value stays in use, so an outage does not switch sign-in off.
 */
export interface SavedOidc {
  /** The saved configuration, or null when none is saved (or its secret cannot be read). */
  current(): Promise<OidcConfig | null>;
  /** Drops the process's copy (after a save on this instance). */
  forget(): void;
}

export function createSavedOidc(options: {
  sql: () => SqlExecutor;
  key: () => ModelKeyring;
  logger?: Logger;
  ttlMs?: number;
  now?: () => number;
}): SavedOidc {
  const ttl = options.ttlMs ?? 5_000;
  const now = options.now ?? Date.now;
  let cached: { value: OidcConfig | null; readAt: number } | null = null;
  let pending: Promise<OidcConfig | null> | null = null;

  async function read(): Promise<OidcConfig | null> {
    try {
      const result = await readSavedOidcConfig(options.sql(), options.key());
      let value: OidcConfig | null = null;
      if (result?.status === "configured") value = result.config;
      else if (result?.status === "unreadable") options.logger?.warn({}, result.message);
      cached = { value, readAt: now() };
      return value;
    } catch (error) {
      options.logger?.error({ err: error }, "single sign-on settings could not be read");
      // Try again at the next call; meanwhile the last known value.
      return cached?.value ?? null;
    } finally {
      pending = null;
    }
  }

  return {
    current() {
      if (cached && now() - cached.readAt < ttl) return Promise.resolve(cached.value);
      return (pending ??= read());
    },
    forget() {
      cached = null;
    },
  };
}
