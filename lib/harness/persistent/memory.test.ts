import { describe, expect, it } from "vitest";

import { createInMemoryCommitLog } from "./in-memory-commit-log";
import { createInMemoryDirBacking } from "./in-memory-dir-backing";
import { steppingClock } from "./internal/testing";
import { memory } from "./memory";
import { openTurnCheckout } from "./open-turn-checkout";
import type { Clock } from "./types";

/** A turn over `dir` alone, on `clock` when given. */
const openTurn = (dir: Parameters<typeof openTurnCheckout>[0]["dirs"][number], clock?: Clock) =>
  openTurnCheckout({
    dirs: [dir],
    extraBody: {},
    session: {},
    commitLog: createInMemoryCommitLog(),
    ...(clock ? { clock } : {}),
  });

describe("memory", () => {
  it("is a normal persistent dir that lists files newest first with size and first line", async () => {
    const clock = steppingClock();
    const backing = createInMemoryDirBacking({
      clock,
      files: { "people/alex.md": "\nAlex prefers short answers.\nMore.", "old.md": "Old note" },
    });
    backing.writeExternally({
      files: { "projects/billing.md": "Billing: migrate to v2\u0007 soon" },
    });
    const dir = memory({ ...backing, limits: { maxFiles: 100 } });
    expect(dir.harnessDir).toBe("/persistent/memory");
    const turn = await openTurn(dir, clock);
    turn.checkout.writeFile({
      path: "/persistent/memory/today.md",
      content: "Today: shipped the release",
    });
    turn.checkout.writeFile({
      path: "/persistent/memory/blob.bin",
      content: new Uint8Array([0, 1]),
    });
    expect(await dir.listingForPrompt({ checkout: turn.checkout })).toBe(
      [
        "Memory files in /persistent/memory, newest first:",
        "- blob.bin (2 B): (binary)",
        "- today.md (26 B): Today: shipped the release",
        "- projects/billing.md (28 B): Billing: migrate to v2  soon",
        "- old.md (8 B): Old note",
        "- people/alex.md (34 B): Alex prefers short answers.",
      ].join("\n"),
    );
    expect(await turn.finishTurn({ status: "completed" })).toMatchObject({ status: "succeeded" });
    expect(Object.keys(backing.files()).sort()).toEqual([
      "blob.bin",
      "old.md",
      "people/alex.md",
      "projects/billing.md",
      "today.md",
    ]);
  });

  it("shows a file's first non-blank line, or (empty)", async () => {
    const backing = createInMemoryDirBacking({
      files: {
        "a.md": "  \n\t\n  Third line wins  \nnot this",
        "b.md": " \n\n",
        "c.md": "no newline at all",
      },
    });
    const dir = memory({ ...backing, harnessDir: "/persistent/user" });
    const turn = await openTurn(dir);
    const lines = (await dir.listingForPrompt({ checkout: turn.checkout }))
      .split("\n")
      .slice(1)
      .sort();
    expect(lines).toEqual([
      "- a.md (33 B): Third line wins",
      "- b.md (3 B): (empty)",
      "- c.md (17 B): no newline at all",
    ]);
  });

  it("bounds the listing and marks truncation", async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 30; index += 1)
      files[`note-${String(index).padStart(2, "0")}.md`] = `Note ${index} ${"x".repeat(300)}`;
    const backing = createInMemoryDirBacking({ files });
    const dir = memory({
      ...backing,
      harnessDir: "/persistent/user",
      listing: { maxEntries: 10, maxFirstLineChars: 20 },
    });
    const turn = await openTurn(dir);
    const listing = await dir.listingForPrompt({ checkout: turn.checkout });
    const lines = listing.split("\n");
    expect(lines).toHaveLength(12);
    expect(lines[1]).toMatch(/^- note-\d\d\.md \(\d+ B\): Note \d+ x+…$/);
    expect(lines[1]!.split(": ").at(-1)!.length).toBe(20);
    expect(lines.at(-1)).toBe(
      "… 20 more file(s) not listed (truncated); list /persistent/user to see them.",
    );

    const tight = memory({
      ...backing,
      harnessDir: "/persistent/user",
      listing: { maxChars: 400 },
    });
    const tightListing = await tight.listingForPrompt({ checkout: turn.checkout });
    expect(tightListing.length).toBeLessThanOrEqual(400);
    expect(tightListing).toMatch(/more file\(s\) not listed \(truncated\)/);
  });

  it("lists the newest files over the turn's writes and deletes, without listing the dir", async () => {
    const clock = steppingClock();
    const files: Record<string, string> = {};
    for (let index = 1; index <= 5; index += 1) files[`old-${index}.md`] = `Old ${index}`;
    const backing = createInMemoryDirBacking({ clock, files });
    backing.writeExternally({ files: { "new-1.md": "New 1" } });
    backing.writeExternally({ files: { "new-2.md": "New 2" } });
    const dir = memory({ ...backing, harnessDir: "/persistent/user", listing: { maxEntries: 2 } });
    const turn = await openTurn(dir, clock);
    turn.checkout.deleteFile({ path: "/persistent/user/new-2.md" });
    turn.checkout.writeFile({ path: "/persistent/user/old-3.md", content: "Old 3, kept up" });
    expect(await dir.listingForPrompt({ checkout: turn.checkout })).toBe(
      [
        "Memory files in /persistent/user, newest first:",
        "- old-3.md (14 B): Old 3, kept up",
        "- new-1.md (5 B): New 1",
        "… 4 more file(s) not listed (truncated); list /persistent/user to see them.",
      ].join("\n"),
    );
    const recent = turn.checkout.recentFiles({ harnessDir: "/persistent/user", limit: 10 });
    expect(recent.total).toBe(6);
    expect(recent.files.map((file) => file.relativePath)).toEqual([
      "old-3.md",
      "new-1.md",
      ...["old-5.md", "old-4.md", "old-2.md", "old-1.md"],
    ]);
  });

  it("ships a skill with the rules for keeping memory", () => {
    const dir = memory({
      ...createInMemoryDirBacking(),
      limits: { maxFiles: 50, maxFileBytes: 64 * 1024 },
    });
    expect(dir.skill.name).toBe("memory");
    for (const rule of [
      /One topic per file/,
      /Update it in place rather than appending a duplicate/,
      /Record why/,
      /Never store secrets/,
      /at most 50 files and 64 KiB per file/,
    ]) {
      expect(dir.skill.content).toMatch(rule);
    }
  });

  it("says when memory is read-only for the turn", async () => {
    const dir = memory({
      ...createInMemoryDirBacking({ files: { "a.md": "A" } }),
      canWrite: () => false,
    });
    const turn = await openTurn(dir);
    expect(await dir.listingForPrompt({ checkout: turn.checkout })).toMatch(
      /^Memory files in \/persistent\/memory \(read-only this turn\)/,
    );
  });
});
