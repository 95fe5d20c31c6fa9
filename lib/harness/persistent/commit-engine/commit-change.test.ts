import { describe, expect, it } from "vitest";

import { commitChangeSet } from "../commit-change-set";
import { resolvePersistentDirs } from "../define-persistent-dirs";
import { createInMemoryDirBacking } from "../in-memory-dir-backing";
import { steppingClock } from "../internal/testing";
import type { PersistentDirTraceEvent } from "../types";
import { commitChange } from "./commit-change";

function setup(files: Record<string, string> = { "a.md": "one\n" }) {
  const backing = createInMemoryDirBacking({ files });
  const [dir] = resolvePersistentDirs({ dirs: [{ harnessDir: "/persistent/notes", ...backing }] });
  const events: PersistentDirTraceEvent[] = [];
  const trace = {
    clock: steppingClock(),
    emit: (event: PersistentDirTraceEvent) => events.push(event),
  };
  return { backing, dir: dir!, events, trace };
}

const change = {
  created: [],
  updated: [{ path: "a.md", content: "two\n" }],
  deleted: [],
};

/** What every commit here sends besides its dir: `change` over the first version of a.md. */
const changeOverFirstVersion = {
  extraBody: null,
  session: null,
  changes: change,
  base: { "a.md": "one\n" },
  baseCursor: 0,
};

describe("commitChange (the commit engine)", () => {
  it("traces started, lets the caller settle, then closes with the record it named", async () => {
    const { backing, dir, events, trace } = setup();
    const order: string[] = [];
    const { outcome, settled } = await commitChange({
      dir,
      ...changeOverFirstVersion,
      trace: { ...trace, emit: (event) => (order.push(event.type), trace.emit(event)) },
      settle: async (result) => {
        order.push(`settle:${result.status}`);
        return { commitId: "rec-1" };
      },
    });
    expect(outcome).toMatchObject({ status: "stored", cursor: 1, merged: false });
    expect(settled).toEqual({ commitId: "rec-1" });
    expect(order).toEqual(["commit.started", "settle:stored", "commit.succeeded"]);
    expect(events[1]).toMatchObject({
      type: "commit.succeeded",
      harnessDir: "/persistent/notes",
      cursor: 1,
      merged: false,
      changes: { updated: ["a.md"], counts: { total: 1 } },
    });
    expect(backing.files()).toEqual({ "a.md": "two\n" });
  });

  it("stores nothing for a refusal and reports the settled error with its record", async () => {
    const { backing, dir, events, trace } = setup();
    const { outcome } = await commitChange({
      dir,
      ...changeOverFirstVersion,
      refusal: { code: "confirm:private-to-shared", message: "waits" },
      trace,
      settle: async () => ({
        commitId: "rec-2",
        error: { code: "confirm:private-to-shared", message: "waits (kept)" },
      }),
    });
    expect(outcome.status).toBe("failed");
    expect(backing.storeCalls).toHaveLength(0);
    expect(events.map((event) => event.type)).toEqual(["commit.started", "commit.failed"]);
    expect(events[1]).toMatchObject({
      commitId: "rec-2",
      error: { code: "confirm:private-to-shared", message: "waits (kept)" },
    });
  });

  it("emits no closing event when settling throws, and rethrows", async () => {
    const { dir, events, trace } = setup();
    await expect(
      commitChange({
        dir,
        ...changeOverFirstVersion,
        trace,
        settle: async () => {
          throw new Error("commit log down");
        },
      }),
    ).rejects.toThrow("commit log down");
    expect(events.map((event) => event.type)).toEqual(["commit.started"]);
  });

  it("traces a conflict with the clashing paths", async () => {
    const { backing, dir, events, trace } = setup();
    backing.writeExternally({ files: { "a.md": "three\n" } });
    const { outcome } = await commitChange({
      dir,
      ...changeOverFirstVersion,
      mergeText: false,
      trace,
      settle: async () => ({ commitId: "rec-3" }),
    });
    expect(outcome.status).toBe("conflict");
    expect(events[1]).toMatchObject({
      type: "commit.conflict",
      conflictedPaths: ["a.md"],
      commitId: "rec-3",
    });
  });
});

describe("commitChangeSet through the engine", () => {
  it("traces an editor's save when asked to", async () => {
    const { backing, events, trace } = setup();
    const outcome = await commitChangeSet({
      dir: { harnessDir: "/persistent/notes", ...backing },
      ...changeOverFirstVersion,
      trace,
    });
    expect(outcome.status).toBe("stored");
    expect(events.map((event) => event.type)).toEqual(["commit.started", "commit.succeeded"]);
  });
});
