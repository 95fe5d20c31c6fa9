/**
 * The shared conformance suite every dir backing must pass (in-memory, local folder, Prisma on
 * SQLite and PostgreSQL). Import it from a `*.test.ts` file only — it depends on vitest, so it
 * is deliberately not exported from `index.ts`.
 *
 * @example
 * runDirBackingConformance("in-memory", async () => ({ backing: createInMemoryDirBacking() }));
 */
import { afterEach, describe, expect, it } from "vitest";

import {
  contentByteLength,
  contentEquals,
  contentHash,
  emptyFileMap,
  fileMapEntries,
} from "./internal/content";
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

    /** A dir over the backing for a turn: lazy when the backing offers the capability. */
    function dirOver(backing: PersistentDirBacking) {
      return {
        harnessDir,
        commit: "after-turn" as const,
        load: backing.load.bind(backing),
        store: backing.store.bind(backing),
        ...(backing.loadIndex && backing.readBodies
          ? {
              loadIndex: backing.loadIndex.bind(backing),
              readBodies: backing.readBodies.bind(backing),
            }
          : {}),
      };
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
      const dirs = [dirOver(backing)];
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

    describe("the lazy capability (when offered)", () => {
      async function lazySetup() {
        const made = await setup();
        const { loadIndex, readBodies } = made.backing;
        if (!loadIndex || !readBodies) return null;
        return {
          ...made,
          index: () => loadIndex.call(made.backing, { ...made.context }),
          bodies: (hashes: readonly string[]) =>
            readBodies.call(made.backing, { ...made.context, hashes }),
        };
      }

      it("indexes what load returns: the same paths, sizes and sha256 of the content, at the same cursor", async (ctx) => {
        const lazy = await lazySetup();
        if (!lazy) return ctx.skip();
        const bytes = new Uint8Array([0, 1, 2, 255]);
        await lazy.store(
          {
            created: [
              { path: "a.md", content: "alpha" },
              { path: "deep/b.bin", content: bytes },
              { path: "empty.txt", content: "" },
            ],
            updated: [],
            deleted: [],
          },
          (await lazy.load()).cursor,
        );
        const loaded = await lazy.load();
        const index = await lazy.index();
        expect(index.cursor).toEqual(loaded.cursor);
        const manifest = Object.fromEntries(
          [...index.entries].map(([path, entry]) => [path, [entry.bytes, entry.hash]]),
        );
        expect(manifest).toEqual(
          Object.fromEntries(
            fileMapEntries(loaded.files).map(([path, content]) => [
              path,
              [contentByteLength(content), contentHash(content)],
            ]),
          ),
        );
        expect(index.entries.size).toBe(3);
        expect(index.entries.bytes).toBe(5 + 4 + 0);
      });

      it("reads a version's bodies at its pinned cursor while another commit lands", async (ctx) => {
        const lazy = await lazySetup();
        if (!lazy) return ctx.skip();
        await lazy.store(
          {
            created: [
              { path: "a.md", content: "first a" },
              { path: "b.md", content: "first b" },
            ],
            updated: [],
            deleted: [],
          },
          (await lazy.load()).cursor,
        );
        const pinned = await lazy.index();
        const stored = await lazy.store(
          { created: [], updated: [{ path: "a.md", content: "second a" }], deleted: ["b.md"] },
          pinned.cursor,
        );
        expect(stored.status).toBe("stored");
        // The index read before is unchanged, and its bodies still read as they were.
        expect(pinned.entries.has("b.md")).toBe(true);
        const bodies = await lazy.bodies([
          pinned.entries.get("a.md")!.hash,
          pinned.entries.get("b.md")!.hash,
        ]);
        expect(contentEquals(bodies.get(pinned.entries.get("a.md")!.hash), "first a")).toBe(true);
        expect(contentEquals(bodies.get(pinned.entries.get("b.md")!.hash), "first b")).toBe(true);
        const now = await lazy.index();
        expect(now.cursor).not.toEqual(pinned.cursor);
        expect([...now.entries.keys()]).toEqual(["a.md"]);
        const second = now.entries.get("a.md")!.hash;
        expect(contentEquals((await lazy.bodies([second])).get(second), "second a")).toBe(true);
      });

      it("stores a body once for every path that holds it", async (ctx) => {
        const lazy = await lazySetup();
        if (!lazy) return ctx.skip();
        const text = "the same policy text\n".repeat(10);
        await lazy.store(
          {
            created: ["one.md", "copies/two.md", "copies/three.md"].map((path) => ({
              path,
              content: text,
            })),
            updated: [],
            deleted: [],
          },
          (await lazy.load()).cursor,
        );
        const index = await lazy.index();
        const hashes = new Set([...index.entries].map(([, entry]) => entry.hash));
        expect(hashes).toEqual(new Set([contentHash(text)]));
        const bodies = await lazy.bodies([...hashes]);
        expect(bodies.size).toBe(1);
        expect(contentEquals(bodies.get(contentHash(text)), text)).toBe(true);
      });

      it("round-trips a manifest through a series of commits", async (ctx) => {
        const lazy = await lazySetup();
        if (!lazy) return ctx.skip();
        const expected = new Map<string, FileContent>();
        let cursor = (await lazy.load()).cursor;
        for (let round = 0; round < 5; round += 1) {
          const created = [{ path: `r${round}/new.md`, content: `round ${round}` }];
          const updated = round > 0 ? [{ path: "r0/new.md", content: `updated in ${round}` }] : [];
          const deleted = round > 1 ? [`r${round - 1}/new.md`] : [];
          const result = await lazy.store({ created, updated, deleted }, cursor);
          expect(result.status).toBe("stored");
          if (result.status !== "stored") return;
          cursor = result.cursor;
          for (const file of [...created, ...updated]) expected.set(file.path, file.content);
          for (const path of deleted) expected.delete(path);
        }
        const index = await lazy.index();
        expect(index.cursor).toEqual(cursor);
        expect(
          Object.fromEntries([...index.entries].map(([path, entry]) => [path, entry.hash])),
        ).toEqual(
          Object.fromEntries([...expected].map(([path, content]) => [path, contentHash(content)])),
        );
      });

      it("serves a turn copy-on-write: reads only the bodies it opens, stores only its changes, no snapshot", async (ctx) => {
        const lazy = await lazySetup();
        if (!lazy) return ctx.skip();
        await lazy.store(
          {
            created: Array.from({ length: 20 }, (_, index) => ({
              path: `notes/${String(index).padStart(2, "0")}.md`,
              content: `note ${index}`,
            })),
            updated: [],
            deleted: [],
          },
          (await lazy.load()).cursor,
        );
        const asked: string[] = [];
        const stores: { snapshot?: unknown; changes: ChangeSet }[] = [];
        const dir = dirOver(lazy.backing);
        const watched = {
          ...dir,
          load: () => {
            throw new Error("a lazy dir is not loaded whole");
          },
          readBodies: (options: Parameters<NonNullable<PersistentDirBacking["readBodies"]>>[0]) => {
            asked.push(...options.hashes);
            return dir.readBodies!(options);
          },
          store: (options: Parameters<PersistentDirBacking["store"]>[0]) => {
            stores.push({ snapshot: options.snapshot, changes: options.changes });
            return dir.store(options);
          },
        };
        const commitLog = createInMemoryCommitLog();
        const turn = await openTurnCheckout({ dirs: [watched], ...lazy.context, commitLog });
        expect(turn.checkout.listFiles({ path: `${harnessDir}/notes` })).toHaveLength(20);
        expect(await turn.checkout.readFile({ path: `${harnessDir}/notes/03.md` })).toBe("note 3");
        turn.checkout.writeFile({ path: `${harnessDir}/notes/03.md`, content: "note 3, edited" });
        turn.checkout.deleteFile({ path: `${harnessDir}/notes/04.md` });
        // Only the bodies of the files opened or changed are asked for (the base of a change is
        // its merge base; none when the process's body cache has them).
        const allowed = new Set([contentHash("note 3"), contentHash("note 4")]);
        expect(asked.filter((hash) => !allowed.has(hash))).toEqual([]);
        expect((await turn.finishTurn({ status: "completed" })).status).toBe("succeeded");
        expect(stores).toHaveLength(1);
        expect(stores[0]!.snapshot).toBeUndefined();
        expect(stores[0]!.changes).toEqual({
          created: [],
          updated: [{ path: "notes/03.md", content: "note 3, edited" }],
          deleted: ["notes/04.md"],
        });
        const loaded = await lazy.load();
        expect(Object.keys(loaded.files)).toHaveLength(19);
        expect(loaded.files["notes/03.md"]).toBe("note 3, edited");
      });

      it("merges a lazy turn's edit with a commit that landed meanwhile, reading only the touched paths", async (ctx) => {
        const lazy = await lazySetup();
        if (!lazy) return ctx.skip();
        await lazy.store(
          {
            created: [
              { path: "log.md", content: "- one\n" },
              { path: "other.md", content: "untouched" },
            ],
            updated: [],
            deleted: [],
          },
          (await lazy.load()).cursor,
        );
        const commitLog = createInMemoryCommitLog();
        const turn = await openTurnCheckout({
          dirs: [dirOver(lazy.backing)],
          ...lazy.context,
          commitLog,
        });
        const path = `${harnessDir}/log.md`;
        turn.checkout.writeFile({
          path,
          content: `${await turn.checkout.readFile({ path })}- ours\n`,
        });
        // Another writer appends first.
        await lazy.store(
          { created: [], updated: [{ path: "log.md", content: "- one\n- theirs\n" }], deleted: [] },
          (await lazy.load()).cursor,
        );
        const persistence = await turn.finishTurn({ status: "completed" });
        expect(persistence.status).toBe("succeeded");
        expect((await lazy.load()).files["log.md"]).toBe("- one\n- theirs\n- ours\n");
        expect((await lazy.load()).files["other.md"]).toBe("untouched");
      });
    });
  });
}
