import { createHash } from "node:crypto";

import {
  hasErrorMarker,
  HarnessError,
  type FileContent,
  type StoreOptions,
  type StoreResult,
} from "@/lib/harness";

/**
 * The parsed `CAIRN_FAULT_INJECTION` setting. **For testing only**: it makes commits fail on
 * purpose so the failures page and retries can be exercised end to end.
 */
export interface FaultInjectionSetting {
  mode: "fail-first-commit";
  /** Only change sets touching a path that contains this text fail; `null`: every change set. */
  marker: string | null;
}

const injectedFaultMarker = Symbol.for("cairn.persistent-dirs.error.injected_fault");

/** The error a fault-injected store throws: code `failed:injected_fault`. */
export class InjectedFaultError extends HarnessError {
  private readonly [injectedFaultMarker] = true;

  constructor(message: string) {
    super({ code: "failed:injected_fault", message });
  }

  static override isInstance(error: unknown): error is InjectedFaultError {
    return hasErrorMarker(error, injectedFaultMarker);
  }
}

/**
 * Parses `CAIRN_FAULT_INJECTION`: unset or empty → off; `fail-first-commit` → the first store
 * attempt of every distinct change set throws; `fail-first-commit:<marker>` → only change sets
 * touching a path containing `<marker>`. Anything else throws, so a typo never silently turns
 * a test into a no-op.
 */
export function parseFaultInjection(value: string | undefined): FaultInjectionSetting | null {
  if (value === undefined || value.trim() === "") return null;
  const [mode, ...rest] = value.trim().split(":");
  const marker = rest.join(":");
  if (mode !== "fail-first-commit" || (rest.length > 0 && marker === "")) {
    throw new Error(
      `CAIRN_FAULT_INJECTION=${JSON.stringify(value)} is not understood; use "fail-first-commit" or "fail-first-commit:<path marker>".`,
    );
  }
  return { mode, marker: rest.length > 0 ? marker : null };
}

function hashContent(content: FileContent): string {
  return createHash("sha256")
    .update(typeof content === "string" ? Buffer.from(content, "utf8") : content)
    .digest("hex");
}

/**
 * A fingerprint of what a store would change: the dir key and every touched path with the
 * hash of its new content (or "deleted"). Created and updated count the same, so a retry that
 * rebases a creation into an update is still the same change.
 */
export function changeSetFingerprint(options: {
  dirKey: string;
  changes: StoreOptions["changes"];
}): string {
  const entries = [
    ...[...options.changes.created, ...options.changes.updated].map(
      (file) => `${file.path}\0${hashContent(file.content)}`,
    ),
    ...options.changes.deleted.map((path) => `${path}\0deleted`),
  ].sort();
  return createHash("sha256")
    .update(`${options.dirKey}\n${entries.join("\n")}`)
    .digest("hex");
}

/** Fingerprints already failed once in this process (shared by every wrapped store). */
const failedOnce = new Set<string>();

/**
 * Wraps a dir's `store` so the first attempt of each distinct change set throws and later
 * attempts pass through — a retry then succeeds. With `setting` `null` the store is returned
 * unchanged. State lives in this process only.
 */
export function withFaultInjection<TExtraBody, TSession>(options: {
  store: (storeOptions: StoreOptions<TExtraBody, TSession>) => Promise<StoreResult>;
  dirKey: (extraBody: TExtraBody) => string;
  setting: FaultInjectionSetting | null;
  /** Where failed fingerprints are remembered. Default: one set per process. */
  seen?: Set<string>;
}): (storeOptions: StoreOptions<TExtraBody, TSession>) => Promise<StoreResult> {
  const { store, setting } = options;
  if (!setting) return store;
  const seen = options.seen ?? failedOnce;
  return async (storeOptions) => {
    const { changes } = storeOptions;
    const paths = [
      ...changes.created.map((file) => file.path),
      ...changes.updated.map((file) => file.path),
      ...changes.deleted,
    ];
    const targeted =
      setting.marker === null || paths.some((path) => path.includes(setting.marker!));
    if (targeted) {
      const fingerprint = changeSetFingerprint({
        dirKey: options.dirKey(storeOptions.extraBody),
        changes,
      });
      if (!seen.has(fingerprint)) {
        seen.add(fingerprint);
        throw new InjectedFaultError(
          "Injected failure (CAIRN_FAULT_INJECTION=fail-first-commit, for testing): the first attempt of this change failed; retrying it succeeds.",
        );
      }
    }
    return store(storeOptions);
  };
}
