import { describe, expect, it } from "vitest";

import { testDatabaseProvider } from "@/lib/db/testing";
import { createHarness, type Actor } from "@/lib/harness";
import { promoteToTeam } from "./promote";
import { getSuggestion, listPendingRefinements } from "./suggestion-store";
import { registerReviewTestWorld } from "./testing";

// Issue 27, item 2: "Suggest for the team" promotes a note or a passage — a suggestion for a
// member, applied in one step for an editor — and pending global refinements share the queue.

const member: Actor = { userId: "p-member", workspaceId: "wp", role: "member" };
const editor: Actor = { userId: "p-editor", workspaceId: "wp", role: "editor" };
const world = registerReviewTestWorld([member, editor]);
const COMPANY = "/persistent/company";

const read = async (path: string) =>
  (await world.service.readFile({ actor: editor, harnessDir: COMPANY, path }))?.text ?? null;

describe(`promotion to the team on ${testDatabaseProvider()}`, () => {
  it("a member's passage becomes a suggestion to add a company file; approval creates it", async () => {
    const result = await promoteToTeam(world.deps, {
      actor: member,
      to: { target: "dir", path: "howto/vpn.md" },
      text: "Use the EU gateway for the VPN.",
      note: "true for everyone",
    });
    expect(result.status).toBe("suggested");
    expect(await read("howto/vpn.md")).toBeNull();
    const suggestion = await getSuggestion(world.deps.sql, { workspaceId: "wp", id: result.id });
    expect(suggestion).toMatchObject({
      source: "promotion",
      status: "open",
      note: "true for everyone",
    });
    expect(suggestion!.dir!.changes.created).toEqual([
      { path: "howto/vpn.md", content: "Use the EU gateway for the VPN.\n" },
    ]);
  });

  it("an editor's own promotion goes through the same suggestion and is applied in one step, appended to an existing file", async () => {
    const first = await promoteToTeam(world.deps, {
      actor: editor,
      to: { target: "dir", path: "howto/printing.md" },
      text: "Printers are on floor 2.",
    });
    expect(first.status).toBe("applied");
    const second = await promoteToTeam(world.deps, {
      actor: editor,
      to: { target: "dir", path: "howto/printing.md" },
      text: "Scan to email works too.",
    });
    expect(second.status).toBe("applied");
    expect(await read("howto/printing.md")).toBe(
      "Printers are on floor 2.\n\nScan to email works too.\n",
    );
    expect(await getSuggestion(world.deps.sql, { workspaceId: "wp", id: second.id })).toMatchObject(
      {
        status: "approved",
        source: "promotion",
        authorId: editor.userId,
        decidedById: editor.userId,
      },
    );
  });

  it("promotes to a global entry: a member suggests, an editor adds it at once", async () => {
    const suggested = await promoteToTeam(world.deps, {
      actor: member,
      to: { target: "entry", kind: "memory", title: "Standup" },
      text: "Standup is at 9:30.",
    });
    expect(suggested.status).toBe("suggested");
    const global = createHarness({
      storage: world.deps.harnessStorage,
      actor: editor,
      chatId: null,
    });
    expect((await global.listEntries({ scope: "global" })).items).toEqual([]);
    const applied = await promoteToTeam(world.deps, {
      actor: editor,
      to: { target: "entry", kind: "prompt", title: "Answer briefly" },
      text: "Answer in three sentences or fewer.",
    });
    expect(applied.status).toBe("applied");
    const items = (await global.listEntries({ scope: "global" })).items;
    expect(items.map((entry) => [entry.kind, entry.title])).toEqual([["prompt", "Answer briefly"]]);
  });

  it("refuses an empty passage and a path outside the dir", async () => {
    await expect(
      promoteToTeam(world.deps, { actor: member, to: { target: "dir", path: "a.md" }, text: "  " }),
    ).rejects.toMatchObject({ code: "validation:suggestion" });
    await expect(
      promoteToTeam(world.deps, {
        actor: member,
        to: { target: "dir", path: "../x.md" },
        text: "x",
      }),
    ).rejects.toMatchObject({ code: "validation:path" });
  });

  it("lists global refinements waiting for approval in the same queue", async () => {
    await world.database.db.refinement.create({
      data: {
        id: "r-pending",
        workspaceId: "wp",
        scope: "global",
        trigger: "explicit",
        status: "pending",
        summary: "Tighten the deploy note",
        edits: JSON.stringify([{ op: "update" }]),
      },
    });
    await world.database.db.refinement.create({
      data: {
        id: "r-done",
        workspaceId: "wp",
        scope: "global",
        trigger: "explicit",
        status: "applied",
      },
    });
    const pending = await listPendingRefinements(world.deps.sql, { workspaceId: "wp" });
    expect(pending.map((r) => [r.id, r.summary, r.editCount])).toEqual([
      ["r-pending", "Tighten the deploy note", 1],
    ]);
  });
});
