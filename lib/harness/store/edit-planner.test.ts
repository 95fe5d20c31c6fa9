import { describe, expect, it } from "vitest";
import { checkEntryId, planCreatedEntry, planUpdatedEntry } from "./edit-planner";
import { type Entry } from "./types";

const NOW = "2026-01-01T00:00:00.000Z";

function memory(overrides: Partial<Entry> = {}): Entry {
  return {
    kind: "memory",
    scope: "local",
    chatId: "chat-1",
    id: "deploys",
    title: "Deploys",
    content: "We deploy on Fridays.",
    path: "notes",
    metadata: { team: "ops", keep: 1 },
    pinned: false,
    source: "user",
    version: 3,
    createdAt: NOW,
    updatedAt: NOW,
    createdBy: "u1",
    updatedBy: "u1",
    ...overrides,
  };
}

describe("edit planner", () => {
  it("tells a reserved id from one that breaks the pattern, and accepts a valid one", () => {
    expect(checkEntryId("base-system-prompt")?.rule).toBe("reserved_id");
    expect(checkEntryId("base_system_prompt")?.rule).toBe("reserved_id");
    expect(checkEntryId("Bad Id")?.rule).toBe("invalid_id");
    expect(checkEntryId(42)?.rule).toBe("invalid_id");
    expect(checkEntryId("-lead")?.rule).toBe("invalid_id");
    expect(checkEntryId("deploys_2")).toBeNull();
  });

  it("merges a metadata patch (null removes a key) and bumps the version", () => {
    const planned = planUpdatedEntry({
      current: memory(),
      metadataPatch: { team: null, owner: "ana", keep: undefined },
      source: "refinement",
      actorId: "u2",
      now: "2026-02-01T00:00:00.000Z",
    });
    expect(planned).toMatchObject({ ok: true, unchanged: false });
    if (!planned.ok) return;
    expect(planned.entry.metadata).toEqual({ keep: 1, owner: "ana" });
    expect(planned.entry).toMatchObject({ version: 4, source: "refinement", updatedBy: "u2" });
  });

  it("reports an update that changes no field as unchanged, returning the current entry", () => {
    const current = memory();
    const planned = planUpdatedEntry({
      current,
      title: "Deploys",
      metadataPatch: { keep: 1 },
      source: "agent",
      actorId: "u2",
      now: NOW,
    });
    expect(planned).toEqual({ ok: true, unchanged: true, entry: current });
  });

  it("returns the contract a new state breaks instead of throwing", () => {
    const planned = planCreatedEntry({
      ref: { kind: "skill", scope: "global", chatId: null, id: "s" },
      title: "S",
      content: "Body",
      metadata: { name: "s" },
      source: "user",
      version: 1,
      actorId: "u1",
      now: NOW,
    });
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.problem.rule).toBe("invalid_entry");
    expect(planned.problem.error.message).toMatch(/metadata\.description/);
  });
});
