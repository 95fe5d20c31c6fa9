import { describe, expect, it, vi } from "vitest";
import { registerAppTestWorld } from "@/lib/accounts/testing";
import { testDatabaseProvider } from "@/lib/db/testing";
import { HarnessForbiddenError, type Harness } from "@/lib/harness";
vi.mock("server-only", () => ({}));

/**
 * Issue 14, finding 7: a turn's tools write the harness with the role read at each write, not
 * the role the turn started with.
 */
describe(`a turn's harness re-reads the role at every write (${testDatabaseProvider()})`, () => {
  const world = registerAppTestWorld({ role: "editor" });
  const membership = () => ({
    userId_workspaceId: { userId: world.actor.userId, workspaceId: world.actor.workspaceId },
  });
  /** A global memory entry written through `harness`. */
  const createGlobalMemory = (harness: Harness, title: string, content: string) =>
    harness.createEntry({ kind: "memory", title, content, global: true });

  it("refuses a demoted editor's global write mid-turn, keeps local writes and reads working", async () => {
    const { harnessForTurn } = await import("./index");
    const harness = await harnessForTurn(world.actor, world.chatId);
    const before = await createGlobalMemory(harness, "Deploy window", "Fridays are frozen.");
    expect(before.scope).toBe("global");

    await world.database.db.membership.update({ where: membership(), data: { role: "member" } });

    const refused = harness.updateEntry({
      kind: "memory",
      id: before.id,
      scope: "global",
      expectedVersion: before.version,
      content: "Fridays are open.",
    });
    await expect(refused).rejects.toSatisfy((error) => HarnessForbiddenError.isInstance(error));
    await expect(createGlobalMemory(harness, "Another", "x")).rejects.toSatisfy((error) =>
      HarnessForbiddenError.isInstance(error),
    );
    const local = await harness.createEntry({ kind: "memory", title: "Mine", content: "local" });
    expect(local.scope).toBe("local");
    expect(
      (await harness.getEntryOrThrow({ kind: "memory", id: before.id, scope: "global" })).content,
    ).toBe("Fridays are frozen.");
  });

  it("lets a member promoted mid-turn write global entries at once", async () => {
    const { harnessForTurn } = await import("./index");
    const member = { ...world.actor, role: "member" as const };
    const harness = await harnessForTurn(member, world.chatId);
    await world.database.db.membership.update({ where: membership(), data: { role: "editor" } });
    const entry = await createGlobalMemory(harness, "Promoted", "now an editor");
    expect(entry.scope).toBe("global");
  });

  it("writes nothing for a person removed mid-turn", async () => {
    const { harnessForTurn } = await import("./index");
    const harness = await harnessForTurn(world.actor, world.chatId);
    await world.database.db.membership.delete({ where: membership() });
    await expect(
      harness.createEntry({ kind: "memory", title: "Gone", content: "x" }),
    ).rejects.toThrow(/no longer a member/);
    expect(await world.database.db.harnessEntry.count({ where: { title: "Gone" } })).toBe(0);
  });
});
