/**
 * The shared conformance suite every dir backing must pass (in-memory, local folder, Prisma on
 * SQLite and PostgreSQL). Import it from a `*.test.ts` file only — it depends on vitest, so it
 * is deliberately not exported from `index.ts`.
 *
 * @example
 * runDirBackingConformance("in-memory", async () => ({ backing: createInMemoryDirBacking() }));
 */
import { afterEach, describe, expect, it } from "vitest";

import { contentEquals, emptyFileMap, fileMapEntries } from "./internal/content";
import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { openTurnCheckout } from "./open-turn-checkout";
import type {
  ChangeSet,
  DirCursor,
  FileContent,
  FileMap,
  PersistentDirBacking,
  StoreResult,
} from "./types";

/** What a conformance factory returns: a fresh, empty backing and how to dispose of it. */
export interface DirBackingUnderTest {
  backing: PersistentDirBacking;
  /** Passed to load/store; e.g. an Actor for owner-keyed backings. */
  extraBody?: unknown;
  session?: unknown;
  cleanup?: () => Promise<void> | void;
}

const harnessDir = "/persistent/conformance";

function applyChanges(files: FileMap, changes: ChangeSet): FileMap {
  const next = emptyFileMap();
  for (const [path, content] of fileMapEntries(files)) next[path] = content;
  for (const file of [...changes.created, ...changes.updated]) next[file.path] = file.content;
  for (const path of changes.deleted) delete next[path];
  return next;
}

function expectSameFiles(actual: FileMap, expected: Record<string, FileContent>): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(expected).sort());
  for (const path of Object.keys(expected)) {
    expect(contentEquals(actual[path], expected[path]), `content of ${path}`).toBe(true);
  }
}

/**
 * Registers the suite under `describe(name)`. `makeBacking` must return a fresh backing with
 * no files each time it is called.
 */
export function runDirBackingConformance(
  name: string,
  makeBacking: () => Promise<DirBackingUnderTest> | DirBackingUnderTest,
): void {
  describe(`dir backing conformance: ${name}`, () => {
    const cleanups: Array<() => Promise<void> | void> = [];
    afterEach(async () => {
      while (cleanups.length > 0) await cleanups.pop()!();
    });

    async function setup() {
      const made = await makeBacking();
      if (made.cleanup) cleanups.push(made.cleanup);
      const context = { extraBody: made.extraBody, session: made.session };
      const load = () => made.backing.load({ ...context });
      const store = async (
        changes: ChangeSet,
        cursor: DirCursor,
        abortSignal?: AbortSignal,
      ): Promise<StoreResult> => {
        const current = await load();
        return made.backing.store({
          ...context,
          harnessDir,
          changes,
          snapshot: applyChanges(current.files, changes),
          cursor,
          abortSignal,
        });
      };
      return { ...made, context, load, store };
    }

    it("loads an empty dir with a cursor", async () => {
      const { load } = await setup();
      const loaded = await load();
      expect(Object.keys(loaded.files)).toEqual([]);
      expect(["string", "number"]).toContain(typeof loaded.cursor);
    });

    it("stores exactly the change set and returns the cursor the next load sees", async () => {
      const { load, store } = await setup();
      const first = await load();
      const created = await store(
        {
          created: [
            { path: "a.md", content: "alpha\n" },
            { path: "notes/deep/b.md", content: "beta" },
          ],
          updated: [],
          deleted: [],
        },
        first.cursor,
      );
      expect(created.status).toBe("stored");
      if (created.status !== "stored") return;
      expect(created.cursor).not.toEqual(first.cursor);
      const second = await load();
      expect(second.cursor).toEqual(created.cursor);
      expectSameFiles(second.files, { "a.md": "alpha\n", "notes/deep/b.md": "beta" });

      const changed = await store(
        {
          created: [{ path: "c.txt", content: "gamma" }],
          updated: [{ path: "a.md", content: "alpha 2\n" }],
          deleted: ["notes/deep/b.md"],
        },
        second.cursor,
      );
      expect(changed.status).toBe("stored");
      expectSameFiles((await load()).files, { "a.md": "alpha 2\n", "c.txt": "gamma" });
    });

    it("keeps the cursor stable while nothing changes", async () => {
      const { load, store } = await setup();
      const first = await load();
      await store(
        { created: [{ path: "x.md", content: "x" }], updated: [], deleted: [] },
        first.cursor,
      );
      const a = await load();
      const b = await load();
      expect(a.cursor).toEqual(b.cursor);
    });

    it("refuses a stale cursor and changes nothing", async () => {
      const { load, store } = await setup();
      const first = await load();
      const stored = await store(
        { created: [{ path: "a.md", content: "one" }], updated: [], deleted: [] },
        first.cursor,
      );
      expect(stored.status).toBe("stored");
      const stale = await store(
        {
          created: [{ path: "b.md", content: "two" }],
          updated: [{ path: "a.md", content: "clobbered" }],
          deleted: [],
        },
        first.cursor,
      );
      expect(stale.status).toBe("conflict");
      if (stale.status === "conflict") expect(typeof stale.message).toBe("string");
      expectSameFiles((await load()).files, { "a.md": "one" });
    });

    it("lets exactly one of two racing stores on the same cursor win", async () => {
      const { load, store } = await setup();
      const first = await load();
      const results = await Promise.all([
        store(
          { created: [{ path: "race.md", content: "left" }], updated: [], deleted: [] },
          first.cursor,
        ),
        store(
          { created: [{ path: "race.md", content: "right" }], updated: [], deleted: [] },
          first.cursor,
        ),
      ]);
      expect(results.filter((result) => result.status === "stored")).toHaveLength(1);
      expect(results.filter((result) => result.status === "conflict")).toHaveLength(1);
    });

    it("round-trips text and bytes", async () => {
      const { load, store } = await setup();
      const bytes = new Uint8Array([0, 1, 2, 255, 254, 0x80]);
      const text = "línea ünïcödé — 日本語\r\nsecond line\n";
      await store(
        {
          created: [
            { path: "bin/data.bin", content: bytes },
            { path: "text.md", content: text },
            { path: "empty.txt", content: "" },
          ],
          updated: [],
          deleted: [],
        },
        (await load()).cursor,
      );
      const loaded = await load();
      expect(typeof loaded.files["text.md"]).toBe("string");
      expect(loaded.files["text.md"]).toBe(text);
      expect(loaded.files["bin/data.bin"]).toBeInstanceOf(Uint8Array);
      expectSameFiles(loaded.files, { "bin/data.bin": bytes, "text.md": text, "empty.txt": "" });
    });

    it("round-trips NFC Unicode paths, spaces and a __proto__ name", async () => {
      const { load, store } = await setup();
      const paths = [
        "caf\u00e9/r\u00e9sum\u00e9.md",
        "with space/file name.md",
        "__proto__/constructor.md",
        "日本/メモ.txt",
      ];
      await store(
        { created: paths.map((path) => ({ path, content: path })), updated: [], deleted: [] },
        (await load()).cursor,
      );
      const loaded = await load();
      expectSameFiles(loaded.files, Object.fromEntries(paths.map((path) => [path, path])));
    });

    it("returns copies: mutating loaded bytes does not change the backing", async () => {
      const { load, store } = await setup();
      await store(
        {
          created: [{ path: "b.bin", content: new Uint8Array([0, 9, 9]) }],
          updated: [],
          deleted: [],
        },
        (await load()).cursor,
      );
      const loaded = await load();
      (loaded.files["b.bin"] as Uint8Array)[1] = 7;
      expectSameFiles((await load()).files, { "b.bin": new Uint8Array([0, 9, 9]) });
    });

    it("rejects an aborted load and an aborted store without changing anything", async () => {
      const { backing, context, load, store } = await setup();
      const controller = new AbortController();
      controller.abort();
      await expect(backing.load({ ...context, abortSignal: controller.signal })).rejects.toThrow();
      const cursor = (await load()).cursor;
      await expect(
        store(
          { created: [{ path: "no.md", content: "no" }], updated: [], deleted: [] },
          cursor,
          controller.signal,
        ),
      ).rejects.toThrow();
      expect(Object.keys((await load()).files)).toEqual([]);
    });

    it("serves a full turn: load → edit → commit → next load", async () => {
      const { backing, context, load } = await setup();
      const dirs = [
        {
          harnessDir,
          commit: "after-turn" as const,
          load: backing.load.bind(backing),
          store: backing.store.bind(backing),
        },
      ];
      const commitLog = createInMemoryCommitLog();
      const turn = await openTurnCheckout({ dirs, ...context, commitLog });
      turn.checkout.writeFile({ path: `${harnessDir}/notes/today.md`, content: "remember this" });
      const persistence = await turn.finishTurn({ status: "completed" });
      expect(persistence.status).toBe("succeeded");
      expectSameFiles((await load()).files, { "notes/today.md": "remember this" });

      const next = await openTurnCheckout({ dirs, ...context, commitLog });
      next.checkout.deleteFile({ path: `${harnessDir}/notes/today.md` });
      expect((await next.finishTurn({ status: "completed" })).status).toBe("succeeded");
      expectSameFiles((await load()).files, {});
    });
  });
}
