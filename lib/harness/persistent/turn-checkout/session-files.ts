import { HarnessError } from "../../errors";
import type { Checkout } from "../checkout";
import type { CheckoutFileInfo } from "../checkout-listing";
import { contentByteLength } from "../internal/content";
import { readHostContent } from "../internal/host-content";
import { printable } from "../paths";
import type {
  Clock,
  CommitMode,
  FileContent,
  HostFileChange,
  HostFileContent,
  HostWriteCommit,
  PersistentDirTraceEvent,
} from "../types";

/**
 * Host-staged file access in the seed's shape (`session.files.write(path, content)`; positional
 * arguments on purpose, to match it). Writes land in this turn's checkout, with the same path
 * checks and size limits as the agent's tools, and are traced (`host.write`, `host.delete`,
 * `host.refused`). How a write can become durable depends on the dir and on when it lands (the
 * result's `commit` says which):
 *
 * - `after-turn` dir, before the commit boundary: committed with the turn's after-turn commit
 *   if the turn completes. The boundary waits for writes started before it.
 * - `manual` dir: committed by `commitManual()` (which waits for writes started before it).
 * - afterwards (an `after-turn` dir after the boundary, a `manual` dir after `commitManual()`,
 *   any dir after a turn that did not complete): kept in this checkout only and discarded when
 *   the next turn loads, by design.
 * - read-only dir (by mode or `canWrite` this turn), a hostile path, a path outside every dir:
 *   refused at once, before any content is read, with `forbidden:dir`, `validation:path` or
 *   `not_found:dir`. Content over the per-file limit is refused with `validation:path` as soon
 *   as the limit is passed. A refused write changes nothing.
 */
export interface SessionFiles {
  /** Creates or replaces a file; `content` may be text, bytes, or a stream of either. */
  write(path: string, content: HostFileContent): Promise<HostFileChange>;
  read(path: string): Promise<FileContent | null>;
  /** Deletes a file; `not_found:path` when there is none. */
  delete(path: string): Promise<HostFileChange>;
  list(path?: string): Promise<CheckoutFileInfo[]>;
}

/** How the model turn ended; only `completed` turns commit. */
export type TurnStatus = "completed" | "aborted" | "failed";

/**
 * The order between a turn's host writes and its commits: a commit waits for the writes
 * started before it; a write started during a commit lands after it. Also says how a write
 * landing now can still become durable (`commitOf`).
 */
export class CommitBoundary {
  readonly #inFlight = new Set<Promise<unknown>>();
  #committing: Promise<unknown> = Promise.resolve();
  /** How the turn ended (`finishTurn`), `null` before. */
  finished: TurnStatus | null = null;
  afterTurnSealed = false;
  manualCommitted = false;

  /** Runs `commit` once every write started before it has settled. */
  run<T>(commit: () => Promise<T>): Promise<T> {
    const earlier = [...this.#inFlight];
    const run = (async () => {
      await Promise.allSettled(earlier);
      return commit();
    })();
    this.#committing = run.catch(() => undefined);
    return run;
  }

  /** Starts a host operation after the commit running now, and tracks it for the next one. */
  track<T>(operation: (wait: Promise<unknown>) => Promise<T>): Promise<T> {
    const running = operation(this.#committing);
    this.#inFlight.add(running);
    void running.finally(() => this.#inFlight.delete(running)).catch(() => undefined);
    return running;
  }

  commitOf(mode: CommitMode): HostWriteCommit {
    if (mode === "after-turn") return this.afterTurnSealed ? "none" : "after-turn";
    if (mode === "manual") {
      const over = this.finished !== null && this.finished !== "completed";
      return this.manualCommitted || over ? "none" : "manual";
    }
    return "none";
  }
}

/** The turn's `files`: host writes into `checkout`, journaled and traced. */
export function createSessionFiles(options: {
  checkout: Checkout;
  boundary: CommitBoundary;
  checkpoint: () => Promise<void>;
  emit: (event: PersistentDirTraceEvent) => void;
  clock: Clock;
}): SessionFiles {
  const { checkout, boundary, checkpoint, emit, clock } = options;
  const refused = (operation: "write" | "delete", path: unknown, error: unknown): unknown => {
    const { code, message } = HarnessError.isInstance(error)
      ? error
      : {
          code: "failed:host-write",
          message: error instanceof Error ? error.message : String(error),
        };
    emit({
      type: "host.refused",
      at: clock.now().toISOString(),
      operation,
      path: typeof path === "string" ? printable(path) : typeof path,
      error: { code, message },
    });
    return error;
  };
  const hostChange = (
    operation: "write" | "delete",
    path: string,
    apply: (
      target: ReturnType<Checkout["assertWritable"]>,
      wait: Promise<unknown>,
    ) => Promise<{ bytes: number }>,
  ): Promise<HostFileChange> => {
    let target: ReturnType<Checkout["assertWritable"]>;
    try {
      target = checkout.assertWritable({ path });
    } catch (error) {
      return Promise.reject(refused(operation, path, error));
    }
    return boundary.track(async (wait) => {
      try {
        const { bytes } = await apply(target, wait);
        await checkpoint();
        const change: HostFileChange = {
          path: target.path,
          harnessDir: target.harnessDir,
          mode: target.mode,
          bytes,
          commit: boundary.commitOf(target.mode),
        };
        const at = clock.now().toISOString();
        if (operation === "write") emit({ type: "host.write", at, ...change });
        else emit({ type: "host.delete", at, ...change });
        return change;
      } catch (error) {
        throw refused(operation, path, error);
      }
    });
  };
  return {
    write: (path, content) =>
      hostChange("write", path, async (target, wait) => {
        const data = await readHostContent({
          content,
          path: target.path,
          maxFileBytes: target.limits.maxFileBytes,
        });
        await wait;
        checkout.writeFile({ path: target.path, content: data });
        return { bytes: contentByteLength(data) };
      }),
    read: async (path) => checkout.readFile({ path }),
    delete: (path) =>
      hostChange("delete", path, async (target, wait) => {
        await wait;
        checkout.deleteFile({ path: target.path });
        return { bytes: 0 };
      }),
    list: async (path) => checkout.listFiles(path === undefined ? {} : { path }),
  };
}
